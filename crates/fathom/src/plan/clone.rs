//! One clone's plan: its files (names, sizes, regions, layout owners), its generator parameters, its directory tree.

use super::limits::physical_memory;
use super::types::*;
use crate::error::RunError;
use fathom_engine::Caps;
use fathom_job::FileServiceKind;
use fathom_job::{JobSpec, SizeSpec};
use fathom_workload::{
    splitmix64, BsMix, Distribution, FileRegion, FileService, Params, SpanVerify,
};
use std::path::{Path, PathBuf};

pub(crate) fn plan_clone(
    (ji, thread): (usize, u32),
    spec: &JobSpec,
    jobnum: u32,
    caps: Caps,
    (limits, notes, made): (Limits, &mut Vec<String>, &Made),
) -> Result<PlannedClone, RunError> {
    let rank = limits.rank;
    let r = rank.map_or(0, |r| r.rank);
    // Under MPI each rank gets its own files unless the job names them (filename=, a
    // shared file) or places $rank itself.
    let format = if rank.is_some() && !spec.filename_format.contains("$rank") {
        format!("{}.$rank", spec.filename_format)
    } else {
        spec.filename_format.clone()
    };
    let dir = if spec.directories.is_empty() {
        None
    } else {
        Some(spec.directories[jobnum as usize % spec.directories.len()].as_str())
    };
    let tree_plan = tree_plan(spec, &format, dir, jobnum, r)?;
    if caps.metadata == Some("mix") {
        let tree = tree_plan.expect("filetree jobs always have a tree");
        let mut seed_state = spec.randseed ^ ((ji as u64) << 40) ^ ((jobnum as u64) << 20);
        let seed = splitmix64(&mut seed_state);
        let region = FileRegion { start: 0, len: 0 };
        return Ok(PlannedClone {
            jobnum,
            index: 0,
            files: Vec::new(),
            params: Params::simple(spec.rw, 4096, region, seed),
            tree: Some(tree),
            replay: None,
            locks: Vec::new(),
            overlapped: false,
        });
    }
    let paths = clone_paths(spec, tree_plan.as_ref(), (&format, dir), jobnum, r, limits)?;
    if let Some(sizes) = &spec.control.concat {
        return concat_clone(ji, spec, (jobnum, caps, limits), paths, sizes);
    }
    let nfiles = paths.len() as u64;
    let min_bs = smallest_bs(spec);
    let seed = clone_seed(spec, ji, jobnum, r);
    let mut size_rng = SizeDraws::new(spec, thread, seed);

    let mut files = Vec::with_capacity(paths.len());
    // Each file's real end (its existing size, or where its layout ends): strided zones
    // and walks with holes wrap there, as fio's do at the file's size.
    let mut file_ends = Vec::with_capacity(paths.len());
    let ctx = FileCtx {
        spec,
        caps,
        limits,
        made,
        rank,
        r,
        jobnum,
        nfiles,
        min_bs,
    };
    // Where each file's region starts in the loops after the first, when that differs.
    let mut later_starts: Vec<Option<u64>> = Vec::new();
    for path in paths {
        let (regions, end, later) = one_file(&ctx, path, files.len() as u64, &mut size_rng)?;
        for r in &regions {
            file_ends.push(end.unwrap_or(r.region.start + r.region.len));
            later_starts.push(later);
        }
        files.extend(regions);
    }
    if !limits.parse_only {
        super::zones::align_regions(spec, &mut files, notes)?;
    }
    // io_size=N%: that share of each file's region, summed, as fio (its job size becomes
    // that total).
    let share;
    let spec = match spec.io_size_percent {
        Some(p) => {
            let mut s = spec.clone();
            s.io_size = Some(
                files
                    .iter()
                    .map(|f| f.region.len * p / 100)
                    .sum::<u64>()
                    .max(1),
            );
            share = s;
            &share
        }
        None => spec,
    };
    let mut params = generator_params(spec, caps, limits, (&files, file_ends), (seed, min_bs))?;
    // A skewed distribution under randrepeat draws from fio's generator per file, seeded
    // as fio seeds it: the hash of the file's name as fio spells it, times the thread;
    // with randseed given, fio's block generator's seed (its FIO_RANDSEED times the
    // thread) for every file.
    // (allrandrepeat without randrepeat: the block generator's seed, fio's own.)
    if (spec.randrepeat || spec.allrandrepeat) && params.dist.is_skewed() {
        params.skew_seeds = (files.iter())
            .map(|f| match (spec.randrepeat, spec.randseed_set) {
                (false, _) => {
                    fathom_workload::fio_all_seed(thread, super::FIO_RAND_BLOCK_OFF) as u32
                }
                (true, true) => 0xb189_9bed_u32.wrapping_mul(thread),
                (true, false) => fathom_workload::fio_jhash(fio_name(&f.path, dir).as_bytes())
                    .wrapping_mul(thread),
            })
            .collect();
    }
    // With io_size the loops and the passes after them are decided one by one, as fio's
    // keep_running does, each pass after the first from the later starts (`size=4m
    // offset=25% loops=2 io_size=8m` on a new file: 4 MiB, 3 MiB, 3 MiB). A random pass
    // after the first ends at its first draw past the file's end, and with randrepeat
    // each such pass repeats the same draws, as fio's (`randwrite size=1m offset=25%
    // io_size=600k loops=3` on a new file: 256 writes, then a few, then the same few). A
    // time-based job keeps the first regions, as do those with trims.
    if later_starts.iter().any(Option::is_some) && !spec.time_based {
        let k = spec.rw.kind;
        let verifies = pass_verifies(spec) || mix_verifies(spec);
        let by_pass = spec.io_size.is_none()
            || (!k.trims() && (verifies || !(spec.verify.do_verify && spec.verify.kind.is_some())));
        if by_pass {
            params.later_starts = later_starts
                .iter()
                .zip(&files)
                .map(|(l, f)| l.unwrap_or(f.region.start))
                .collect();
            if let Some(limit) = spec.io_size {
                let loops = spec.loops.max(1);
                params.loops = loops;
                params.pass_floor = limit;
                params.pass_weight = 1 + u64::from(verifies);
                params.io_bytes = limit.saturating_mul(u64::from(loops));
                params.wrap = false;
                // number_ios counts over these passes, as over io_size's others.
                if !params.ios_span_loops {
                    number_ios_budget(spec, &mut params);
                }
            }
        }
    }
    // As fio 3.33: a random job whose blockalign differs from a direction's smallest block
    // size goes without the random map (it may read a block twice and another not at
    // all), and says so.
    let ba_differs = (0..3).any(|d| {
        let ba = spec.blockalign.0[d];
        ba != 0 && ba != params.len_range(d).0
    });
    if ba_differs && spec.rw.kind.is_random() && params.randommap && !spec.lfsr {
        params.randommap = false;
        let note = format!(
            "{}: blockalign= other than the smallest block size turns the random map off, \
             as in fio (some blocks are done twice, others not at all)",
            spec.name
        );
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    // zoned_abs zones that end past a file's region: fio's job ends at its first draw in
    // such a zone ("zoned_abs sizes exceed file size"), and so does fathom's; say so.
    if let Distribution::ZonedAbs(z) = &params.dist {
        let end = z.iter().map(|z| z.size as u64).sum::<u64>();
        if let Some(f) = files.iter().find(|f| f.region.len < end) {
            let note = format!(
                "{}: random_distribution=zoned_abs zones end at {end} bytes, past the {} \
                 bytes of {}: as in fio, the job ends at its first I/O drawn there \
                 (fio: \"zoned_abs sizes exceed file size\")",
                spec.name,
                f.region.len,
                f.path.display()
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    Ok(finish_clone(spec, caps, jobnum, files, params))
}

/// The job's smallest block size of any direction (4096 when none is set).
fn smallest_bs(spec: &JobSpec) -> u64 {
    spec.bs
        .0
        .iter()
        .copied()
        .filter(|&b| b > 0)
        .min()
        .unwrap_or(4096)
}

/// The clone with fio's loop rules applied to its generator's parameters.
fn finish_clone(
    spec: &JobSpec,
    caps: Caps,
    jobnum: u32,
    files: Vec<PlannedFile>,
    mut params: Params,
) -> PlannedClone {
    endless_random_io_size(spec, caps, &mut params);
    // (A job with trims — trimwrite's count with its writes — has no issue limit here:
    // fio's is not modelled for it.)
    if !spec.time_based && !spec.rw.kind.trims() {
        let per_loop = spec.io_size.unwrap_or_else(|| job_size(spec, &params));
        params.issue_limit = per_loop.saturating_mul(u64::from(spec.loops.max(1)));
    }
    loop_passes_as_fio(spec, caps, &mut params);
    async_loops_budget(spec, caps, &mut params);
    async_pass_cap(spec, caps, &mut params);
    // fio's time-based job starts a random file whose map is full over in place — unless
    // a queueing engine verifies: its pass ends once it has queued the size, and the
    // verify phase follows (the full map is that pass's end here).
    params.restart_full = spec.time_based
        && (completes_inline(spec, caps) || spec.verify.kind.is_none() || !spec.verify.do_verify);
    PlannedClone {
        jobnum,
        index: 0,
        files,
        params,
        tree: None,
        replay: None,
        locks: Vec::new(),
        overlapped: false,
    }
}

/// A clone over files laid end to end (vdbench's concatenated SDs, `Control::concat`):
/// each file its whole (existing) size; the generator over one region of their joined
/// space, from offset= (and offset_increment= per clone) for size= bytes (default: to
/// the end), its I/Os moved to their files as they are handed out.
fn concat_clone(
    ji: usize,
    spec: &JobSpec,
    (jobnum, caps, limits): (u32, Caps, Limits),
    paths: Vec<PathBuf>,
    sizes: &[u64],
) -> Result<PlannedClone, RunError> {
    if spec.verify.kind.is_some() || spec.io_size_percent.is_some() {
        return Err(plan_err(
            spec,
            "verify= and io_size=N% with files laid end to end are not implemented",
        ));
    }
    if !sizes.is_empty() && sizes.len() != paths.len() {
        return Err(plan_err(
            spec,
            format!(
                "{} files laid end to end, but {} sizes given",
                paths.len(),
                sizes.len()
            ),
        ));
    }
    let min_bs = smallest_bs(spec);
    let seed = clone_seed(spec, ji, jobnum, limits.rank.map_or(0, |r| r.rank));
    let mut files = Vec::with_capacity(paths.len());
    let mut ends = Vec::with_capacity(paths.len());
    let mut total = 0u64;
    for (i, path) in paths.into_iter().enumerate() {
        let want = sizes.get(i).copied();
        let len = if limits.parse_only {
            want.unwrap_or(1 << 50)
        } else {
            let (now, _) = size_of(&path).map_err(|e| RunError::Setup {
                job: spec.name.clone(),
                path: path.clone(),
                source: e,
            })?;
            match (now, want) {
                (Some(n), Some(w)) if n >= w && w > 0 => w,
                (Some(n), None) if n > 0 => n,
                _ => {
                    return Err(plan_err(
                        spec,
                        format!(
                            "{} does not exist or holds less than its {} bytes: files laid \
                             end to end are used as they are, never made or grown (create \
                             it first)",
                            path.display(),
                            want.unwrap_or(1)
                        ),
                    ))
                }
            }
        };
        total += len;
        ends.push(total);
        files.push(PlannedFile {
            path,
            region: FileRegion { start: 0, len },
        });
    }
    let Some(first) = files.first() else {
        return Err(plan_err(spec, "no files to lay end to end"));
    };
    let start =
        spec.offset.resolve(total, 1) + spec.offset_increment.resolve(total, 1) * u64::from(jobnum);
    let len = match spec.size {
        Some(s) => s.resolve(total, 1),
        None => total.saturating_sub(start),
    };
    if start.saturating_add(len) > total || len < min_bs {
        return Err(plan_err(
            spec,
            format!(
                "the region {start}+{len} does not fit the {total} bytes of its files laid end \
                 to end (or holds no {min_bs}-byte block)"
            ),
        ));
    }
    let whole = [PlannedFile {
        path: first.path.clone(),
        region: FileRegion { start, len },
    }];
    let mut params = generator_params(spec, caps, limits, (&whole, vec![total]), (seed, min_bs))?;
    params.concat = Some(ends.into());
    Ok(finish_clone(spec, caps, jobnum, files, params))
}

/// The clone's files: its tree's, filename='s, opendir='s (the files below it), or
/// nrfiles names made by filename_format.
fn clone_paths(
    spec: &JobSpec,
    tree_plan: Option<&TreePlan>,
    (format, dir): (&str, Option<&str>),
    jobnum: u32,
    r: u32,
    limits: Limits,
) -> Result<Vec<PathBuf>, RunError> {
    Ok(if let Some(t) = tree_plan {
        (0..t.tree.files()).map(|i| t.file_path(i)).collect()
    } else if !spec.filenames.is_empty() {
        spec.filenames.iter().map(|f| join_dir(dir, f)).collect()
    } else if let Some(top) = &spec.control.opendir {
        if limits.parse_only {
            // Not looked at: the folder stands for its files.
            vec![PathBuf::from(top)]
        } else {
            files_below(Path::new(top))
                .map_err(|m| plan_err(spec, format!("opendir={top}: {m}")))?
        }
    } else {
        (0..spec.nrfiles.max(1))
            .map(|n| {
                join_dir(
                    dir,
                    &expand_filename_format_rank(format, &spec.name, jobnum, n, r),
                )
            })
            .collect()
    })
}

/// The clone's random seed: randseed, the job and clone numbers and the rank; without
/// randrepeat, the time and process too.
fn clone_seed(spec: &JobSpec, ji: usize, jobnum: u32, r: u32) -> u64 {
    let mut seed_state =
        spec.randseed ^ ((ji as u64) << 40) ^ ((jobnum as u64) << 20) ^ ((r as u64) << 52);
    if !spec.randrepeat && !spec.allrandrepeat {
        seed_state ^= std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
            ^ ((std::process::id() as u64) << 32);
    }
    splitmix64(&mut seed_state)
}

/// The bytes of one pass over the regions: `size_cap`, except that a sequential walk of
/// one fixed block size over a region that is not a whole number of blocks takes its
/// last block past the region's end where the file goes on (as fio fits a fixed size to
/// the file, not the region: `size=10k bs=4k` on a larger file moves 12k a pass), and a
/// random one over a map in its own blocks moves its regions' whole blocks.
fn pass_bytes(spec: &JobSpec, params: &Params, size_cap: u64, total: u64) -> u64 {
    let k = spec.rw.kind;
    let d = if k.writes() {
        1
    } else if k.reads() {
        0
    } else {
        2
    };
    let (lo, hi) = params.len_range(d);
    if size_cap == total
        && k.is_random()
        && params.randommap
        && lo == hi
        && lo > 0
        && params.map_unit == lo
    {
        // A random pass over the map takes the whole blocks of each region only: `size=10k
        // offset=5k bs=4k` writes 8k a pass (fio's io_size=50k with loops then makes six
        // passes of two blocks, 12 writes, where a pass counted as 10k made five).
        return params.files.iter().map(|r| r.len / lo * lo).sum();
    }
    if size_cap != total || k.is_random() || spec.rw.suffix != 0 || lo != hi || lo == 0 {
        return size_cap;
    }
    params
        .files
        .iter()
        .enumerate()
        .map(|(i, r)| {
            // The region's blocks, the last one reaching past the region where the file
            // holds it; where it does not, the whole blocks the file holds (fio issues
            // no I/O past a file's end: `size=64k nrfiles=3 bs=4k` moves 5 blocks of
            // each 21845-byte file a pass, 60k, and io_size=1m with verify makes nine
            // such passes, written and read back, where 64k a pass made eight).
            let whole = r.len.div_ceil(lo) * lo;
            let end = params.file_ends.get(i).copied().unwrap_or(r.start + r.len);
            whole.min(end.saturating_sub(r.start) / lo * lo)
        })
        .sum()
}

/// A job with an io_size of more than a pass over its region, as fio runs it: fio makes
/// `loops` passes, then more while all it moved — writes, reads, the verify phase's
/// reads, trims — is short of io_size by a block or more, though a pass itself counts
/// only its writes (and stops at io_size × loops). So where a pass moves more than its
/// writes (a writing job that verifies after each pass; trimwrite, whose trims equal its
/// writes), or with loops, the passes are whole: `size=1m io_size=4m verify=md5` writes
/// 2 MiB and reads 2 MiB; `rw=trimwrite size=1m io_size=3m` trims and writes 2 MiB each;
/// `rw=read size=1m io_size=2500k loops=2` reads 3 MiB (one loop: 2.5 MiB). A
/// random job without the random map (its io_size is one long pass), a time-based one
/// and experimental_verify (which replays every write at the end) are left as they are.
/// A sequential mix with loops, whose passes vary in length, is decided pass by pass in
/// the generator (`Params::pass_floor`).
fn io_size_passes(spec: &JobSpec, params: &mut Params, pass: u64, inline: bool) {
    let k = spec.rw.kind;
    // (Strided zones whatever io_size is: a random walk's draw past the file's end in a
    // zone the file's end cuts ends the pass, and fio's keep_running goes on with another
    // while the job is short of io_size.)
    let Some(limit) = spec.io_size.filter(|&n| n > pass || params.zones.is_some()) else {
        return;
    };
    if spec.time_based || (k.is_random() && !params.randommap) || pass == 0 {
        return;
    }
    let seq_mixed = k.reads() && k.writes() && !k.is_random();
    if seq_mixed {
        // fio ends a sequential mix's pass when either direction reaches the end, so its
        // length varies: the generator decides after each pass, as fio does, with the
        // whole job's budget io_size × loops. In one loop the job wraps (fio's too),
        // unless it verifies: then each pass is read back (its writes), the reads
        // counted in the budget, and another pass follows while the job is short of it
        // (`rw size=128k io_size=1m verify=crc32c`: four passes, each verified, where
        // fathom wrapped through one and verified at the end). On a queueing engine a
        // pass also ends once it has queued the size (see `async_pass_cap`): `rw
        // size=64k io_size=300k ioengine=libaio iodepth=4` starts the file over after
        // 16 blocks, as fio (fathom wrapped each direction at the file's end).
        let verifies = mix_verifies(spec);
        if params.loops >= 2 || verifies || !inline {
            params.pass_floor = limit;
            params.pass_weight = 1 + verifies as u64;
            params.io_bytes = limit.saturating_mul(params.loops as u64);
            params.wrap = false;
        }
        return;
    }
    let verifies = pass_verifies(spec) || mix_verifies(spec);
    let trims_too = k.writes() && k.trims();
    if spec.rw.suffix != 0 || params.zones.is_some() {
        // A walk with holes moves less than its region in a pass (`rw=write:8k bs=4k
        // size=256k`: 22 blocks), or goes round the file until the budget is spent (as
        // strided zones do): its passes are decided one by one as fio's keep_running
        // does, each verified, the verify reads counted (`io_size=512k verify=crc32c`:
        // three passes of 22 writes and their 22 reads, where fathom made one).
        params.pass_floor = limit;
        params.pass_weight = 1 + verifies as u64 + trims_too as u64;
        params.io_bytes = limit.saturating_mul(u64::from(params.loops.max(1)));
        params.wrap = false;
        return;
    }
    let (lo, hi) = params.len_range(if k.writes() { 1 } else { 0 });
    if k.is_random()
        && params.randommap
        && (lo != hi || params.map_unit != lo || (verifies && k.reads()))
    {
        // A random pass over a map in smaller units than its blocks, or with mixed
        // sizes, or a verifying mix (its reads back are its writes, however many the
        // mix made: `randrw size=128k io_size=1m verify=md5`), moves as much as its
        // draws make it (`bs=2k,8k rw=randwrite size=10k`:
        // each 8k write at a 2k place, two or three a pass): its passes are decided one
        // by one as fio's keep_running does, as above, where a pass counted as the
        // region's size made too many or too few.
        params.pass_floor = limit;
        params.pass_weight = 1 + verifies as u64 + trims_too as u64;
        params.io_bytes = limit.saturating_mul(u64::from(params.loops.max(1)));
        params.wrap = false;
        return;
    }
    let per_pass = pass * (1 + verifies as u64 + trims_too as u64);
    if per_pass == pass && params.loops < 2 {
        // A pass moves its writes alone, in one loop: fio stops in the pass where io_size
        // is reached, as the generator's wrap does. With loops (fio's limit in a pass is
        // then io_size × loops) the passes are whole.
        return;
    }
    let rounds = passes_to(limit, per_pass, params.len_range(1).1.max(1));
    params.io_bytes = pass;
    params.wrap = false;
    params.loops = params.loops.max(rounds.min(u32::MAX as u64) as u32);
}

/// A read/write mix, sequential or random, that reads each pass's writes back to verify
/// them (fio's verify phase after each of its passes).
fn mix_verifies(spec: &JobSpec) -> bool {
    let (k, v) = (spec.rw.kind, &spec.verify);
    k.reads() && k.writes() && v.do_verify && v.kind.is_some() && !v.only && !v.experimental
}

/// A writing job that reads each pass back to verify it (not verify_only, not
/// experimental_verify, which replays every write at the end): fio counts those reads
/// against io_size as well.
fn pass_verifies(spec: &JobSpec) -> bool {
    let k = spec.rw.kind;
    spec.verify.do_verify
        && spec.verify.kind.is_some()
        && !spec.verify.only
        && !spec.verify.experimental
        && k.writes()
        && !k.reads()
        && !k.trims()
}

/// An io_size of at most a pass, with loops, as fio counts it: one budget of io_size ×
/// loops for the whole job, each loop a pass that ends at the region's end or where the
/// budget is spent (so `size=256k io_size=24k loops=2 rw=randwrite` writes 12 blocks in
/// its first loop and none in its second, where fathom wrote 6 blocks twice, the same 6).
fn io_size_budget(spec: &JobSpec, params: &mut Params, pass: u64) {
    let Some(io) = spec.io_size.filter(|&n| n <= pass) else {
        return;
    };
    if params.loops < 2 || spec.time_based || params.pass_floor > 0 {
        return;
    }
    // The generator's fio passes: a loop is one pass, io_bytes the job's budget (a
    // number_ios is then counted over the whole job: see number_ios_budget).
    params.pass_floor = io;
    params.io_bytes = io.saturating_mul(u64::from(params.loops));
    params.wrap = false;
}

/// How many passes of `per_pass` bytes fio's keep_running makes toward `limit`: another
/// while the job is short of it by at least `max_bs`.
fn passes_to(limit: u64, per_pass: u64, max_bs: u64) -> u64 {
    let mut rounds = 1u64;
    while per_pass * rounds < limit && limit - per_pass * rounds >= max_bs {
        rounds += 1;
    }
    rounds
}

/// io_size above the size for a random walk that never ends by itself — no random map
/// (norandommap), or a skewed distribution (fio keeps no map for zipf, pareto, normal,
/// zoned) — as fio's do_io runs it. On an engine that completes each I/O as it is
/// issued, one pass to the job's budget of io_size × loops: `randread zipf:1.2 size=128k
/// io_size=1m loops=3` reads 768 blocks in one pass where fathom read 256 in eight. On a
/// queueing engine each pass ends once it has queued the size (a writer's: io_size),
/// and passes follow, loops first, while the job is short of io_size:
/// `randread norandommap` as above on libaio reads eight passes of 32 blocks, where
/// fathom read 768. (Not with verify, number_ios or trims: their passes are decided
/// elsewhere.)
fn endless_random_io_size(spec: &JobSpec, caps: Caps, params: &mut Params) {
    let k = spec.rw.kind;
    let Some(io) = spec.io_size else { return };
    let endless = k.is_random()
        && !spec.lfsr
        && (!params.randommap || !params.uniform_offsets())
        && params.zones.is_none();
    let size = job_size(spec, params);
    if !endless
        || spec.time_based
        || size == 0
        || io <= size
        || params.number_ios > 0
        || k.trims()
        || (spec.verify.do_verify && spec.verify.kind.is_some())
        || caps.metadata.is_some()
        || params.pass_floor > 0
    {
        return;
    }
    let loops = spec.loops.max(1);
    if completes_inline(spec, caps) {
        params.loops = 1;
        params.io_bytes = io.saturating_mul(u64::from(loops));
        params.wrap = true;
        return;
    }
    // (fio's allowance for random overwrites without the map — a skewed distribution
    // has none — lets a writer's pass run to io_size.)
    let pass = if k.writes() { io } else { size };
    let max_bs = (0..3)
        .map(|d| params.len_range(d).1)
        .max()
        .unwrap_or(1)
        .max(1);
    let rounds = passes_to(io, pass, max_bs);
    params.io_bytes = pass;
    params.wrap = false;
    params.loops = (u64::from(loops).max(rounds)).min(u64::from(u32::MAX)) as u32;
}

/// Loops on an engine that completes each I/O as it is issued (sync, psync, the vector
/// ones, mmap; null at depth 1), as fio's do_io runs them: a loop ends where its files are
/// done or where the job's budget of size × loops is spent, with no limit of its own
/// (fio counts a loop's own bytes only as an asynchronous engine queues them). So a walk
/// that goes round its file without being done (holes that wrap, strided zones, a random
/// job without the random map) does all its loops' I/O in the first loop, verifies it
/// once and ends: `rw=write:16k bs=4k size=256k loops=3 verify=crc32c` writes 192 blocks,
/// then reads back the 13 places they went to, once (fathom verified them after each of
/// three loops), and `randwrite norandommap loops=3` draws on through the loops instead
/// of drawing the first loop's offsets again. A file done before size (`size=64k
/// rw=write:16k`: 4 writes) ends its loop there, and the next loop starts it over.
///
/// A walk with holes that verifies each pass goes on the same way after its loops: fio's
/// verify phase starts the files over, so more passes follow while the job has moved
/// (written and read back) less than size: `rw=write:8k bs=4k size=1m verify=md5` makes
/// two passes of 86 writes, each read back (fathom made one). Not with an asynchronous
/// engine's loops, whose own limit of size ends a walk that goes round its file.
fn loop_passes_as_fio(spec: &JobSpec, caps: Caps, params: &mut Params) {
    let inline = completes_inline(spec, caps);
    let k = spec.rw.kind;
    // (So does a random one whose map is in smaller units than its writes, whose pass
    // ends once the map's free units no longer hold a write: `randwrite bs=4k,8k
    // size=1m verify=md5` writes 51 blocks and reads them back, twice.)
    let short_pass = (spec.rw.suffix != 0 && !k.is_random())
        || (k.is_random() && params.randommap && params.map_unit > 0);
    let holes_verified = short_pass && pass_verifies(spec);
    let sync_loops = inline && params.loops >= 2;
    // (A number_ios of one loop's own stops the passes of a walk with holes where fio's
    // count does — number_ios × loops over them all, the verify reads in it — and not
    // before: `rw=write:8k bs=4k size=200k filesize=40k number_ios=20 verify=crc32c`
    // makes two passes of 4 writes, each read back, where fathom made one.)
    let own_count = params.number_ios > 0 && !params.ios_span_loops;
    if !(sync_loops || (holes_verified && (inline || params.loops == 1)))
        || decided_by_another_rule(spec, caps, params)
        || (own_count && !holes_verified)
    {
        return;
    }
    // With percentage offsets on a new file (later starts) the budget spans the loops
    // too: a walk ends its loop at its file's end, and what one loop did counts against
    // the next, as fio's issued bytes do. `rw bs=8k size=64k offset=10% loops=3` on a
    // new file reads 8 blocks and writes 6 in the first loop (from 0, the reads run to
    // the file's end), then 10 from 8k and none in the third (fathom did 8 each loop).
    let pass = params.io_bytes;
    params.io_bytes = pass.saturating_mul(u64::from(params.loops));
    if holes_verified {
        params.pass_floor = pass;
        params.pass_weight = 2;
        if own_count {
            number_ios_budget(spec, params);
        }
    } else {
        // The generator's fio passes, one a loop; a floor of one byte makes no passes
        // after the loops (without io_size fio's keep_running stops once the files are
        // done).
        params.pass_floor = 1;
    }
}

/// Loops on an asynchronous engine, as fio's do_io runs them: each loop ends where its
/// files are done or where it has queued its size, and the whole job where all it has
/// queued reaches size × loops (fio's count of the issued bytes, never reset between
/// loops). So a loop that went past its size ends the last one short: `size=250k bs=4k
/// loops=2 ioengine=libaio` on a larger file reads 63 blocks (the last one fits the file,
/// not the region), then 62, where fathom read 63 twice. (The engines that complete each
/// I/O as it is issued: see [`loop_passes_as_fio`].)
fn async_loops_budget(spec: &JobSpec, caps: Caps, params: &mut Params) {
    if completes_inline(spec, caps)
        || params.loops < 2
        || loops_decided_elsewhere(spec, caps, params)
    {
        return;
    }
    params.job_bytes = job_size(spec, params).saturating_mul(u64::from(params.loops));
}

/// The engine completes each I/O as it is issued (sync, psync, the vector ones, mmap;
/// null at depth 1): fio's do_io counts no bytes of a loop's own then.
pub(crate) fn completes_inline(spec: &JobSpec, caps: Caps) -> bool {
    !caps.is_async || (spec.ioengine == "null" && spec.iodepth <= 1)
}

/// The job's loops and passes are another rule's (metadata engines, time, io_size,
/// a number_ios of each loop, the pass-by-pass mode, io_size's wrap): the loop rules
/// above leave it. (A number_ios counted over the loops is not theirs: fio stops at that
/// count or at the budget, whichever comes first.)
fn loops_decided_elsewhere(spec: &JobSpec, caps: Caps, params: &Params) -> bool {
    decided_by_another_rule(spec, caps, params) || (params.number_ios > 0 && !params.ios_span_loops)
}

/// As [`loops_decided_elsewhere`], a number_ios of each loop aside.
fn decided_by_another_rule(spec: &JobSpec, caps: Caps, params: &Params) -> bool {
    caps.metadata.is_some()
        || spec.time_based
        || spec.io_size.is_some()
        || params.pass_floor > 0
        || params.wrap
}

/// The job's size as fio has it (`size=`, at most the regions; else the regions).
fn job_size(spec: &JobSpec, params: &Params) -> u64 {
    let regions: u64 = params.files.iter().map(|f| f.len).sum();
    match spec.size {
        Some(SizeSpec::Bytes(b)) if b > 0 => b.min(regions),
        _ => regions,
    }
}

/// fio's passes (`pass_floor`) on an asynchronous engine: each pass, a do_io of fio's,
/// ends once it has queued the job's size (plus io_size for a random writer without the
/// map, plus size again for a writer with verify_backlog), even where its walk goes on
/// round the file: `rw=write:16k bs=4k size=256k io_size=512k verify=crc32c loops=2
/// ioengine=libaio` writes 64 blocks a pass (the 13 places of its walk, round and round)
/// and reads back the 13 after each, where the engines that complete each I/O as it is
/// issued write 256 in one pass.
fn async_pass_cap(spec: &JobSpec, caps: Caps, params: &mut Params) {
    if completes_inline(spec, caps) || params.pass_floor == 0 || spec.time_based {
        return;
    }
    let k = spec.rw.kind;
    let size = job_size(spec, params);
    let mut cap = size;
    if k.writes() && k.is_random() && !params.randommap {
        cap = cap.max(spec.io_size.unwrap_or(0));
    }
    if spec.verify.kind.is_some() && k.writes() && spec.verify.backlog > 0 {
        cap += size;
    }
    if k.writes() && k.trims() {
        cap += size;
    }
    params.pass_cap = cap;
}

/// number_ios with loops, as fio counts it: one count of number_ios × loops for the whole
/// job, the verify phase's reads in it, each loop a pass that ends at the region's end or
/// where the count is reached (`size=1m number_ios=100 loops=3 verify=crc32c` writes the
/// file once, 256 blocks, and verifies them: 512 I/Os are past 300, so no more loops).
/// The passes io_size makes count the same way, as one job: `size=20k bs=8k io_size=100k
/// number_ios=9 verify=crc32c` writes 2 and reads 2 twice, then writes 1 and reads it,
/// where each pass had counted 9 of its own. So does io_size's budget over loops.
fn number_ios_budget(spec: &JobSpec, params: &mut Params) {
    let k = spec.rw.kind;
    // (With io_size the count is still number_ios × loops for the whole job — fio's
    // check is against its loops option, not the passes io_size makes.)
    let loops = if spec.io_size.is_some() {
        spec.loops.max(1)
    } else {
        params.loops
    };
    // (A pass floor here is io_size's, whose passes are the job's loops: the count is
    // over them all, with the verify phases' reads, whatever `loops` says.)
    // (verify_backlog's reads come within the loop, so they count in one loop too:
    // `randwrite number_ios=40 verify_backlog=16` writes 24 and reads 16 of them back,
    // then the verify phase reads the other 8.)
    let v = &spec.verify;
    let inline_reads = v.do_verify && v.kind.is_some() && k.writes() && !v.only && v.backlog > 0;
    if params.number_ios == 0
        || (params.loops < 2 && params.pass_floor == 0 && !inline_reads)
        || spec.time_based
        || k.trims()
    {
        return;
    }
    params.number_ios = params.number_ios.saturating_mul(u64::from(loops));
    params.ios_span_loops = true;
    params.span_verify = if !(v.do_verify && v.kind.is_some() && k.writes()) || v.only {
        SpanVerify::None
    } else if v.backlog > 0 {
        SpanVerify::Inline {
            every: v.backlog,
            batch: if v.backlog_batch > 0 {
                v.backlog_batch
            } else {
                v.backlog
            },
        }
    } else {
        SpanVerify::AfterLoop
    };
}

/// fio's random map unit for a random job: the smallest block size of reads and writes,
/// a direction the job does not do included (`bs=16k,4k rw=randread`: 4k); see
/// [`Params::map_unit`]. 0 where fio's map is in the job's own blocks (trims,
/// blockalign, lfsr).
fn fio_map_unit(spec: &JobSpec, params: &Params) -> u64 {
    let k = spec.rw.kind;
    if !k.is_random() || k.trims() || spec.lfsr {
        return 0;
    }
    if spec.blockalign.0.iter().any(|&b| b > 0) {
        return 0;
    }
    let smallest = |i: usize| match &params.bs_mix[i] {
        Some(BsMix::Range { lo, .. }) => *lo,
        Some(BsMix::Split(v)) => v.iter().map(|x| x.0).min().unwrap_or(params.bs[i]),
        None => params.bs[i],
    };
    smallest(0).min(smallest(1))
}

/// The clone's generator parameters over its regions, checked now (every region holds a
/// block; the random map fits in memory, or softrandommap goes without it) so that nothing
/// is created for a job that cannot run.
fn generator_params(
    spec: &JobSpec,
    caps: Caps,
    limits: Limits,
    (files, file_ends): (&[PlannedFile], Vec<u64>),
    (seed, min_bs): (u64, u64),
) -> Result<Params, RunError> {
    let total: u64 = files.iter().map(|f| f.region.len).sum();
    // fio's rule: size= bounds the job's I/O when it is smaller than its files' regions
    // (filesize=16m size=4m does 4 MiB of I/O over a 16 MiB file); io_size overrides both.
    let size_cap = match spec.size {
        Some(SizeSpec::Bytes(b)) if b > 0 && b < total => b,
        _ => total,
    };
    let zones = strided_zones(spec, files, file_ends.last().copied().unwrap_or(0))?;
    let mut params = Params {
        zones,
        stride: spec.control.stride,
        pass_floor: 0,
        pass_weight: 1,
        job_bytes: 0,
        pass_cap: 0,
        // As fio, which seeds its generators again at each loop when randrepeat is on. A
        // time-based sequential job over one file goes round it within one loop: no new
        // seed. One over several files ends its loop when they are all done, and the next
        // loop is seeded again; so does a random one whose files are done (a partly
        // random walk that does not fit a file's end; a random one with its map starts a
        // full file over where it is, without a new seed).
        // (randseed= turns fio's randrepeat off once its seeds are made: its draws then
        // go on through the loops.)
        repeat_each_pass: spec.randrepeat
            && !spec.randseed_set
            && (!spec.time_based || files.len() > 1 || spec.rw.kind.is_random()),
        hotband: spec.control.hotband,
        one_position: spec.control.one_position,
        range_wrap: None,
        concat: None,
        file_ends,
        later_starts: Vec::new(),
        issue_limit: 0,
        rw: spec.rw,
        bs: spec.bs.0,
        rwmixread: spec.rwmixread,
        files: files.iter().map(|f| f.region).collect(),
        io_bytes: spec.io_size.unwrap_or(size_cap),
        loops: spec.loops.max(1),
        number_ios: spec.number_ios,
        ios_span_loops: false,
        span_verify: SpanVerify::None,
        map_unit: 0,
        time_based: spec.time_based,
        wrap: spec.io_size.is_some() || spec.time_based,
        seed,
        // lfsr promises each block once per pass: fathom keeps it with the map.
        randommap: !spec.norandommap || spec.lfsr,
        starts_only: spec.lfsr,
        lfsr_seed: None,
        file_seed: None,
        zone_seed: None,
        skew_seeds: Vec::new(),
        bs_mix: [0, 1, 2].map(|i| {
            if !spec.bssplit[i].is_empty() {
                Some(BsMix::Split(aligned_split(
                    &spec.bssplit[i],
                    spec.bs_unaligned,
                )))
            } else {
                spec.bsrange[i].map(|(lo, hi)| BsMix::Range {
                    lo,
                    hi,
                    unaligned: spec.bs_unaligned,
                })
            }
        }),
        blockalign: spec.blockalign.0,
        dist: distribution(&spec.random_distribution),
        percentage_random: spec.percentage_random.0,
        sequencer_identical: spec.rw_sequencer_identical,
        bs_is_seq_rand: spec.bs_is_seq_rand,
        open_limit: match spec.openfiles {
            Some(o) if caps.metadata.is_none() => o.max(1) as usize,
            _ => 0,
        },
        // Set for the whole run by the plan (`share_gates`; the clone's number).
        file_gate: None,
        mix_seed: None,
        independent_mix: spec.control.independent_mix,
        bs_seeds: None,
        rand64: false,
        offset_seed: None,
        restart_full: false,
        seq_rand_seed: None,
        dist_dirs: spec.random_distribution_dirs.as_ref().map(|d| {
            [0, 1, 2].map(|i| {
                d[i].as_ref()
                    .map(distribution)
                    .unwrap_or(Distribution::Random)
            })
        }),
        // A segmented layout goes through its segments in order, as IOR does.
        file_service: match (&spec.file_service_dist, spec.file_service) {
            (None, (FileServiceKind::RoundRobin, 1)) if spec.segments > 1 => {
                FileService::Sequential(0)
            }
            (Some(d), _) => FileService::Dist(distribution(d)),
            (None, (FileServiceKind::RoundRobin, n)) => FileService::RoundRobin(n),
            (None, (FileServiceKind::Random, n)) => FileService::Random(n),
            (None, (FileServiceKind::Sequential, n)) => FileService::Sequential(n),
        },
    };
    // fio's check: the job's size must hold its smallest block (of any direction), or
    // fio refuses it ("size too small") — files that go on past the regions do not help.
    let smallest_bs = (0..3).map(|d| params.len_range(d).0).min().unwrap_or(0);
    if caps.metadata.is_none() && size_cap > 0 && size_cap < smallest_bs {
        return Err(plan_err(
            spec,
            format!(
                "size {size_cap} is smaller than the smallest block size {smallest_bs} \
                 (fio: size too small); make size larger or bs smaller"
            ),
        ));
    }
    if let Some((extra, back)) = spec.control.range_wrap {
        // vdbench's range past the SD's end: one region, reaching `extra` bytes past it.
        if let [r] = params.files.as_mut_slice() {
            params.range_wrap = Some((r.start + r.len, back));
            r.len += extra;
            // The walk's file ends where the extended region does (the generator's
            // done test is the file's end).
            if let Some(e) = params.file_ends.first_mut() {
                *e = (*e).max(r.start + r.len);
            }
        }
    }
    params.map_unit = fio_map_unit(spec, &params);
    params.randommap = random_map_fits(spec, limits, files, min_bs, params.randommap)?;
    let pass = pass_bytes(spec, &params, size_cap, total);
    io_size_passes(spec, &mut params, pass, completes_inline(spec, caps));
    io_size_budget(spec, &mut params, size_cap);
    number_ios_budget(spec, &mut params);
    // Check now, before anything is created, that every region holds a block (without
    // the random map: the worker allocates that, once).
    let check = Params {
        randommap: false,
        ..params.clone()
    };
    fathom_workload::Generator::new(check).map_err(|e| {
        plan_err(
            spec,
            format!("{e}; make size/filesize larger or bs smaller"),
        )
    })?;
    Ok(params)
}

/// Whether the clone keeps its random map: one bit per block, refused when this machine
/// cannot hold it (fio advises norandommap the same way) before it is allocated, or given
/// up with softrandommap (as fio does when its allocation fails).
fn random_map_fits(
    spec: &JobSpec,
    limits: Limits,
    files: &[PlannedFile],
    min_bs: u64,
    wanted: bool,
) -> Result<bool, RunError> {
    // The random map takes a bit per block: refuse one this machine cannot hold (fio
    // advises norandommap the same way) before allocating it.
    if wanted && spec.rw.kind.is_random() {
        // (With strided zones each file's map is one zone's, as fio sizes it.)
        let zone = (spec.zonemode == fathom_job::ZoneMode::Strided)
            .then_some(if spec.zonerange > 0 {
                spec.zonerange
            } else {
                spec.zonesize
            })
            .filter(|&r| r > 0);
        let blocks: u64 = files
            .iter()
            .map(|f| zone.unwrap_or(f.region.len) / min_bs.max(1))
            .sum();
        let bytes = blocks / 8;
        let have = physical_memory();
        if bytes > have / 2 && spec.softrandommap {
            // softrandommap: go on without a map, as fio does when its allocation fails.
            return Ok(false);
        } else if bytes > have / 2 && !limits.parse_only {
            return Err(plan_err(
                spec,
                format!(
                    "the random map of {blocks} blocks would take {bytes} bytes, more than \
                     half of this machine's {have} bytes of memory; add norandommap (or \
                     random_generator=lfsr), or use a larger bs or a smaller size"
                ),
            ));
        }
    }
    Ok(wanted)
}

/// A file's region(s), where the file ends (None for segments), and where its region
/// starts in the loops after the first when that differs.
type OneFile = (Vec<PlannedFile>, Option<u64>, Option<u64>);

/// What every file of a clone is laid out with.
#[derive(Clone, Copy)]
struct FileCtx<'a> {
    spec: &'a JobSpec,
    caps: Caps,
    limits: Limits,
    /// What the run's earlier jobs leave of each file they lay out.
    made: &'a Made,
    rank: Option<Rank>,
    r: u32,
    jobnum: u32,
    nfiles: u64,
    min_bs: u64,
}

/// The sizes drawn from a `filesize=` range, file by file: fio's draws under randrepeat
/// (its file-size generator, seeded as fio seeds the job's thread `thread`), else
/// fathom's.
pub(crate) enum SizeDraws {
    Fio(fathom_workload::FioRand),
    Own(fathom_workload::Rng),
}

impl SizeDraws {
    fn new(spec: &JobSpec, thread: u32, seed: u64) -> SizeDraws {
        /// fio's index of the file-size generator among its seeds.
        const FIO_RAND_FILE_SIZE_OFF: u32 = 7;
        if spec.randrepeat || spec.allrandrepeat {
            let s = match spec.allrandrepeat {
                true => fathom_workload::fio_all_seed(thread, FIO_RAND_FILE_SIZE_OFF),
                false => fathom_workload::fio_seed(spec.randseed, thread, FIO_RAND_FILE_SIZE_OFF),
            };
            SizeDraws::Fio(fathom_workload::FioRand::new(s, spec.rand64))
        } else {
            SizeDraws::Own(fathom_workload::Rng::new(seed ^ 0x5eed))
        }
    }

    /// A size from `lo` up to (not including) `hi`, down to a multiple of `min_bs`, as
    /// fio scales its draw (through a double).
    fn draw(&mut self, lo: u64, hi: u64, min_bs: u64) -> u64 {
        let span = hi - lo;
        let v = match self {
            SizeDraws::Fio(g) => lo + g.scaled(span),
            SizeDraws::Own(g) => lo + g.below(span.max(1)),
        };
        v - v % min_bs.max(1)
    }
}

/// The `nth` file's I/O region (or, in IOR's segmented layout, its regions) by fio's rules,
/// and where the file ends (None for segments): its size, the share of size=, offset and
/// offset_increment (continued across ranks for a shared file), file_append, fill_device.
fn one_file(
    c: &FileCtx,
    path: PathBuf,
    nth: u64,
    size_rng: &mut SizeDraws,
) -> Result<OneFile, RunError> {
    let FileCtx {
        spec,
        caps,
        limits,
        rank,
        r,
        jobnum,
        min_bs,
        ..
    } = *c;
    let Sizes {
        existing,
        device,
        drawn,
        split,
        fill,
        per_file,
    } = file_sizes(c, &path, nth, size_rng)?;
    // Percentages of offset= and offset_increment= are of the file as it is: fio takes
    // them of a file that does not exist yet as of 0 bytes (its I/O then starts at 0).
    let base = if limits.parse_only {
        existing.unwrap_or(per_file)
    } else {
        existing.unwrap_or(0)
    };
    let offset = spec.offset.resolve(base, min_bs);
    // Ranks sharing named files (N-1) continue the clone numbering: rank r's clone j is
    // clone r*numjobs+j, each in its own region (offset_increment, or size when none).
    let shared = rank.is_some() && !spec.filenames.is_empty();
    let clone_index = if shared {
        r as u64 * spec.numjobs as u64 + jobnum as u64
    } else {
        jobnum as u64
    };
    let percent = matches!(spec.offset, SizeSpec::Percent(p) if p > 0.0)
        || matches!(spec.offset_increment, SizeSpec::Percent(p) if p > 0.0);
    // The region's start in a file of `base` bytes. As fio: with a percentage offset or
    // increment, the sum rounds up to offset_align (default the minimum block size).
    let start_in = |base: u64| {
        let incr = spec.offset_increment.resolve(base, 1);
        let step = if shared && incr == 0 { per_file } else { incr };
        let raw = spec.offset.resolve(base, 1) + step * clone_index;
        if percent {
            let align = if spec.offset_align > 0 {
                spec.offset_align
            } else {
                min_bs
            };
            raw.div_ceil(align) * align
        } else {
            raw
        }
    };
    let start = start_in(base);
    // file_append: a regular file's region starts at its end (offset= its size), as
    // fio; the region is the file's share of size= (or its own size).
    let append = spec.control.file_append && !device && !caps.diskless && fill.is_none();
    let start = if append {
        existing.filter(|_| !limits.parse_only).unwrap_or(0)
    } else {
        start
    };
    let len = if append {
        per_file
    } else if let Some(f) = fill {
        f.saturating_sub(start)
    } else if drawn.is_none() && spec.size.is_none() && caps.diskless {
        per_file
    } else {
        region_len(spec, existing, drawn, split, start, min_bs)
            .map_err(|m| plan_err(spec, format!("{}: {m}", path.display())))?
    };
    if spec.segments > 1 {
        return Ok((segment_regions(c, &path, per_file, offset)?, None, None));
    }
    if let (Some(dev_len), true) = (existing, device) {
        if start + len > dev_len {
            return Err(plan_err(
                spec,
                format!(
                    "the I/O region ends at byte {} but {} has only {dev_len} bytes",
                    start + len,
                    path.display()
                ),
            ));
        }
    }
    let end = existing.unwrap_or(0).max(start + len);
    // As fio: each loop after the first takes a percentage offset (or increment) again,
    // of the file's size after its layout; on a file laid out here the first loop's was
    // taken of 0 bytes.
    // On a file the clones share, each clone does so alike when they share one region
    // (no offset_increment): all of them find the file laid out by then. (With an
    // increment each of fio's clones sees the others' layouts at its own moments;
    // fathom keeps their first regions.)
    let one_region = match spec.offset_increment {
        SizeSpec::Bytes(b) => b == 0,
        SizeSpec::Percent(p) => p <= 0.0,
    };
    let own_file =
        spec.filenames.is_empty() || (rank.is_none() && (spec.numjobs == 1 || one_region));
    // With file_append a later loop starts at the file's end again, which is where the
    // first loop left it: fio's later loops find nothing to do.
    let later = if append && own_file && !limits.parse_only {
        Some(end)
    } else {
        (percent && own_file && fill.is_none() && !limits.parse_only).then(|| start_in(end))
    }
    .filter(|&s| s != start);
    Ok((
        vec![PlannedFile {
            path,
            region: FileRegion { start, len },
        }],
        Some(end),
        later,
    ))
}

/// A file's sizes: what it has (None: no file yet, or not looked at), whether it is a
/// device, filesize's draw, its share of size=, fill_device's size, and the size its region
/// is cut from.
struct Sizes {
    existing: Option<u64>,
    device: bool,
    drawn: Option<u64>,
    split: u64,
    fill: Option<u64>,
    per_file: u64,
}

fn file_sizes(
    c: &FileCtx,
    path: &Path,
    nth: u64,
    size_rng: &mut SizeDraws,
) -> Result<Sizes, RunError> {
    let FileCtx {
        spec,
        caps,
        limits,
        made,
        nfiles,
        min_bs,
        ..
    } = *c;
    let (existing, device) = if caps.diskless {
        (None, false)
    } else if limits.parse_only {
        // Not looked at: sizes that come from the target are taken as unknown.
        (None, false)
    } else {
        let (now, device) = size_of(path).map_err(|e| RunError::Setup {
            job: spec.name.clone(),
            path: path.to_path_buf(),
            source: e,
        })?;
        // As fio, which sets its jobs up in order: a file as the jobs before this one
        // leave it (laid out to their regions' ends, or removed by unlink=1).
        match (device, made.get(&super::made_key(path))) {
            (false, Some(Some(end))) => (Some(now.unwrap_or(0).max(*end)), false),
            (false, Some(None)) => (None, false),
            _ => (now, device),
        }
    };
    // The file's nominal size: filesize (a draw from its range), or size split
    // over the files. Percentages of offset and offset_increment take the existing
    // file's size, or this one.
    // As fio: a file that exists with a size in the range keeps it; another takes a
    // size drawn from the range (fio's draw, from its generator under randrepeat).
    let drawn = spec.filesize.map(|(lo, hi)| match existing {
        Some(e) if (lo..=hi).contains(&e) && !limits.parse_only => e,
        _ if hi > lo => size_rng.draw(lo, hi, min_bs),
        _ => lo,
    });
    let split = match spec.size {
        Some(SizeSpec::Bytes(b)) => {
            // fio makes the first files a block bigger when size does not split evenly.
            let extra = (b - b / nfiles * nfiles) / min_bs;
            b / nfiles + if nth < extra { min_bs } else { 0 }
        }
        _ => 0,
    };
    if existing.is_none() && spec.control.no_file_create && !limits.parse_only {
        return Err(plan_err(
            spec,
            format!(
                "{} does not exist and allow_file_create=0 forbids creating it; create \
                 the file first or drop allow_file_create=0",
                path.display()
            ),
        ));
    }
    // --parse-only: a size that would come from the target is a nominal 1 PiB.
    let existing = existing.or(limits.parse_only.then_some(1 << 50));
    // fill_device sizes the region to the free space only when no size is given: with
    // size= (or filesize=) that is the region, as fio's (a random write stays in it, a
    // sequential one still ends at ENOSPC if the space runs out first).
    let sized = spec.size.is_some() || spec.filesize.is_some();
    let fill = if spec.control.fill_device && !sized && !limits.parse_only && !caps.diskless {
        Some(fill_size(spec, path, existing, device, nfiles, min_bs)?)
    } else {
        None
    };
    let per_file = per_file(c, path, (drawn, split, fill), existing)?;
    Ok(Sizes {
        existing,
        device,
        drawn,
        split,
        fill,
        per_file,
    })
}

/// The file's size: fill_device's, filesize's draw, size split over the files, a
/// percentage of the existing file, or the existing file's own.
fn per_file(
    c: &FileCtx,
    path: &Path,
    (drawn, split, fill): (Option<u64>, u64, Option<u64>),
    existing: Option<u64>,
) -> Result<u64, RunError> {
    let FileCtx {
        spec, caps, min_bs, ..
    } = *c;
    Ok(match (drawn, spec.size) {
        _ if fill.is_some() => fill.unwrap_or(0),
        (Some(d), _) => d,
        (None, Some(SizeSpec::Bytes(_))) => split,
        (None, Some(SizeSpec::Percent(p))) => match existing {
            Some(len) => SizeSpec::Percent(p).resolve(len, min_bs),
            None => {
                return Err(plan_err(
                    spec,
                    format!(
                        "size={p}% needs an existing file or device, and {} does not exist",
                        path.display()
                    ),
                ))
            }
        },
        // fio's filecreate, dircreate, dirstat and dirdelete: one block per file.
        (None, None) if caps.metadata.is_some() && caps.diskless => min_bs,
        (None, None) => match existing {
            Some(len) if len > 0 => len,
            _ => {
                return Err(plan_err(
                    spec,
                    format!(
                        "no size given and {} does not exist; set size= (e.g. size=1g)",
                        path.display()
                    ),
                ))
            }
        },
    })
}

/// IOR's segmented layout of a shared file: `segments` segments, each holding one block
/// per clone of the run (every rank's clones under MPI); clone c's block of segment s
/// starts at offset + s × clones × block + c × block.
fn segment_regions(
    c: &FileCtx,
    path: &Path,
    per_file: u64,
    offset: u64,
) -> Result<Vec<PlannedFile>, RunError> {
    let FileCtx {
        spec,
        rank,
        r,
        jobnum,
        min_bs,
        ..
    } = *c;
    // IOR's segmented layout: the file is `segments` segments, each holding one
    // block per clone of the run (every rank's clones under MPI); clone c's block
    // of segment s starts at offset + s × clones × block + c × block.
    if spec.filenames.is_empty() {
        return Err(plan_err(
            spec,
            "segments lays out one shared file: name it with filename= (each clone \
             of every rank then gets its block in each segment)",
        ));
    }
    let clones = rank.map_or(1, |r| r.size as u64) * spec.numjobs as u64;
    let block = per_file / spec.segments as u64 / min_bs * min_bs;
    if block == 0 {
        return Err(plan_err(
            spec,
            format!(
                "size {per_file} split into {} segments leaves less than a block \
                 ({min_bs} bytes) per segment",
                spec.segments
            ),
        ));
    }
    let index = r as u64 * spec.numjobs as u64 + jobnum as u64;
    Ok((0..spec.segments as u64)
        .map(|s| PlannedFile {
            path: path.to_path_buf(),
            region: FileRegion {
                start: offset + s * clones * block + index * block,
                len: block,
            },
        })
        .collect())
}

/// The length of one file's I/O region from `start`, by fio's rules: with `filesize`, the
/// file's size (`drawn` from the range, or the existing file's when it lies in the range)
/// less the start; with `size`, its even `split` over the files; with neither, the existing
/// file from the start. `size=N%` then keeps N% of the file (start included), no more than
/// the region, aligned down to the smallest block.
pub(crate) fn region_len(
    spec: &JobSpec,
    existing: Option<u64>,
    drawn: Option<u64>,
    split: u64,
    start: u64,
    min_bs: u64,
) -> Result<u64, String> {
    let file = match (spec.filesize, drawn) {
        (Some((lo, hi)), Some(d)) => match existing {
            Some(e) if e >= lo && e <= hi => e,
            _ => d,
        },
        _ if split > 0 => return Ok(split),
        _ => existing.unwrap_or(0),
    };
    let Some(mut len) = file.checked_sub(start) else {
        return Err(format!(
            "the offset {start} lies beyond the end of the file ({file} bytes); \
             make filesize/size larger or the offset smaller"
        ));
    };
    if let Some(SizeSpec::Percent(p)) = spec.size {
        if p < 100.0 {
            len = len.min(((len + start) as f64 * p / 100.0) as u64);
            len -= len % min_bs.max(1);
        }
    }
    Ok(len)
}

/// The clone's directory tree: for `filetree` jobs always, for other jobs when they ask
/// for one (tree_depth or unique_dir). None: the job's files are named as fio names them.
pub(crate) fn tree_plan(
    spec: &JobSpec,
    format: &str,
    dir: Option<&str>,
    jobnum: u32,
    rank: u32,
) -> Result<Option<TreePlan>, RunError> {
    let t = &spec.tree;
    let filetree = spec.ioengine == "filetree";
    if t.shared && !filetree {
        return Err(plan_err(
            spec,
            "tree_shared is for ioengine=filetree (other engines share a tree's directories, each clone with files of its own)",
        ));
    }
    if !filetree && t.depth == 0 && !t.unique {
        if t.vdbench_names {
            return Err(plan_err(
                spec,
                "tree_names=vdbench names a directory tree: add tree_depth (or use ioengine=filetree)",
            ));
        }
        return Ok(None);
    }
    if !spec.filenames.is_empty() {
        return Err(plan_err(
            spec,
            "a directory tree names its own files: drop filename= (use directory= for the \
             tree's root)",
        ));
    }
    let tree =
        fathom_workload::Tree::new(t.depth, t.width, spec.nrfiles.max(1) as u64, t.all_levels)
            .map_err(|e| plan_err(spec, e))?;
    // filetree files are named for their clone and number, not the job, so the phases
    // of an mdtest-style run (create, stat, delete jobs) meet the same files.
    let default_format = spec.filename_format == fathom_job::JobSpec::default().filename_format;
    if t.shared && t.unique {
        return Err(plan_err(
            spec,
            "tree_shared and unique_dir contradict each other: one shares the tree, the other gives each clone its own",
        ));
    }
    // A shared tree's files belong to no clone: named by their number alone.
    if t.shared && !t.vdbench_names && !default_format && spec.filename_format.contains("$jobnum") {
        return Err(plan_err(
            spec,
            "in a tree_shared tree every clone uses every file: drop $jobnum from filename_format",
        ));
    }
    let format = if filetree && t.shared && default_format {
        "f.$filenum".to_string()
    } else if filetree && default_format {
        format.replacen("$jobname", "f", 1)
    } else {
        format.to_string()
    };
    const MARK: u32 = u32::MAX;
    let template = expand_filename_format_rank(&format, &spec.name, jobnum, MARK, rank);
    let (name_prefix, name_suffix) = match template.split_once(&MARK.to_string()) {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None if tree.files_per_dir() <= 1 => (template.clone(), String::new()),
        None => {
            return Err(plan_err(
                spec,
                format!(
                    "filename_format={} has no $filenum, so the {} files of a directory \
                     would share one name; add $filenum",
                    spec.filename_format,
                    tree.files_per_dir()
                ),
            ))
        }
    };
    if name_prefix.contains('/') || name_suffix.contains('/') {
        return Err(plan_err(
            spec,
            "in a directory tree filename_format names a file, not a path: drop the '/'",
        ));
    }
    let base = join_dir(dir, "");
    let root = if t.unique {
        // Named for the clone alone, so the phases of a run (separate jobs) share trees.
        base.join(format!(
            "tree.{}",
            rank as u64 * spec.numjobs as u64 + jobnum as u64
        ))
    } else {
        base
    };
    Ok(Some(TreePlan {
        root,
        tree,
        name_prefix,
        name_suffix,
        vdbench_names: t.vdbench_names,
    }))
}

/// Expand fio's `filename_format` keywords.
pub fn expand_filename_format(fmt: &str, jobname: &str, jobnum: u32, filenum: u32) -> String {
    expand_filename_format_rank(fmt, jobname, jobnum, filenum, 0)
}

/// [`expand_filename_format`] with fathom's `$rank` (the MPI rank; 0 outside MPI).
pub fn expand_filename_format_rank(
    fmt: &str,
    jobname: &str,
    jobnum: u32,
    filenum: u32,
    rank: u32,
) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut rest = fmt;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let key = ["jobname", "jobnum", "filenum", "rank"]
            .into_iter()
            .find(|k| tail.starts_with(k));
        let Some(k) = key else {
            out.push('$');
            rest = tail;
            continue;
        };
        let after = &tail[k.len()..];
        let v = match k {
            "jobname" => {
                out.push_str(jobname);
                rest = after;
                continue;
            }
            "jobnum" => jobnum,
            "filenum" => filenum,
            _ => rank,
        };
        // fathom extension: a number keyword with `:W` is padded with zeros to W digits
        // (`$rank:8` is IOR's 00000003).
        let width = after
            .strip_prefix(':')
            .map(|d| d.bytes().take_while(u8::is_ascii_digit).count())
            .filter(|&n| (1..=2).contains(&n));
        match width {
            Some(n) => {
                let w: usize = after[1..=n].parse().unwrap_or(0);
                out.push_str(&format!("{v:0w$}"));
                rest = &after[1 + n..];
            }
            None => {
                out.push_str(&v.to_string());
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A file's name as fio spells it: `directory/name` as given (`dir/` gives `dir//name`),
/// or the name alone.
fn fio_name(path: &Path, dir: Option<&str>) -> String {
    match dir.and_then(|d| Some((d, path.strip_prefix(d).ok()?))) {
        Some((d, rest)) => format!("{d}/{}", rest.display()),
        None => path.display().to_string(),
    }
}

pub(crate) fn join_dir(dir: Option<&str>, name: &str) -> PathBuf {
    let p = Path::new(name);
    match dir {
        Some(d) if !p.is_absolute() => Path::new(d).join(p),
        _ => p.to_path_buf(),
    }
}

/// fill_device: a device's size, or a file's size now plus its share of the free space of
/// its file system (the job then writes until ENOSPC).
pub(crate) fn fill_size(
    spec: &JobSpec,
    path: &Path,
    existing: Option<u64>,
    device: bool,
    nfiles: u64,
    min_bs: u64,
) -> Result<u64, RunError> {
    if device {
        return Ok(existing.unwrap_or(0));
    }
    if !spec.rw.kind.writes() {
        return Err(plan_err(
            spec,
            "fill_device with a pattern that does not write: fill the file system in a \
             write job first, then read it in a stonewalled job (as fio's \
             examples/surface-scan.fio does)",
        ));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = dir
        .ancestors()
        .find(|p| p.exists())
        .unwrap_or(Path::new("."));
    let v = nix::sys::statvfs::statvfs(dir).map_err(|e| {
        plan_err(
            spec,
            format!(
                "fill_device: {}: {}",
                dir.display(),
                std::io::Error::from(e)
            ),
        )
    })?;
    let free = (v.blocks_available() as u64).saturating_mul(v.fragment_size() as u64);
    let share = free / nfiles.max(1) / min_bs * min_bs;
    if share == 0 {
        return Err(plan_err(
            spec,
            format!("fill_device: {} has no free space", dir.display()),
        ));
    }
    Ok(existing.unwrap_or(0) + share)
}

/// A file's size (None: it does not exist yet) and whether it is a block device, from one
/// stat for a regular file.
pub(crate) fn size_of(path: &Path) -> std::io::Result<(Option<u64>, bool)> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::metadata(path) {
        Ok(m) if m.file_type().is_block_device() => Ok((fathom_engine::file_size(path)?, true)),
        Ok(m) => Ok((Some(m.len()), false)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((None, false)),
        Err(e) => Err(e),
    }
}

/// fio's `zonemode=strided` for a clone: None without zones, or with several files (fio
/// turns zones off when a job has more than one file open). zonesize with zonemode=none
/// (fio's default: zonesize alone is not enough), or strided without it, is an error, as
/// in fio.
fn strided_zones(
    spec: &JobSpec,
    files: &[PlannedFile],
    file_end: u64,
) -> Result<Option<fathom_workload::Zones>, RunError> {
    use fathom_job::ZoneMode;
    let strided = match spec.zonemode {
        ZoneMode::None | ZoneMode::Unset if spec.zonesize > 0 => {
            return Err(plan_err(
                spec,
                "zonesize needs zonemode=strided (or zbd): fio's zonemode is none unless \
                 set, and fio refuses zonesize with it; add zonemode=strided, or drop zonesize",
            ))
        }
        ZoneMode::Strided if spec.zonesize == 0 => {
            return Err(plan_err(
                spec,
                "zonemode=strided needs zonesize= (the bytes done in each zone), e.g. \
                 zonesize=256m",
            ))
        }
        ZoneMode::Strided => true,
        ZoneMode::None | ZoneMode::Unset | ZoneMode::Zbd => false,
    };
    if !strided {
        return Ok(None);
    }
    // With several files each zone walk is its file's (the generator takes each file's
    // end); `end` is the single file's.
    let Some(f) = files.first() else {
        return Ok(None);
    };
    if spec.rw.suffix < 0 {
        return Err(plan_err(
            spec,
            "a backward walk (rw=...:-N) does not go with zonemode=strided: fio's walk leaves \
             its zones there; use a forward stride or no zones",
        ));
    }
    let range = if spec.zonerange > 0 {
        spec.zonerange
    } else {
        spec.zonesize
    };
    Ok(Some(fathom_workload::Zones {
        size: spec.zonesize,
        range,
        skip: spec.zoneskip,
        end: file_end.saturating_sub(f.region.start),
    }))
}

/// `opendir`: every regular file below `top`, recursively, in name order (links and
/// other file types are passed over, as fio's lstat walk does).
fn files_below(top: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let rd = std::fs::read_dir(d).map_err(|e| format!("cannot read {}: {e}", d.display()))?;
        let mut entries: Vec<_> = rd.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            match e.file_type() {
                Ok(t) if t.is_file() => out.push(e.path()),
                Ok(t) if t.is_dir() => walk(&e.path(), out)?,
                _ => {}
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(top, &mut out)?;
    if out.is_empty() {
        return Err(
            "the folder holds no regular files; name one that does, or use \
                    directory= with nrfiles= to make files"
                .into(),
        );
    }
    Ok(out)
}

/// A bssplit's sizes as fio issues them: without bs_unaligned each is rounded down to a
/// multiple of the smallest (fio masks a drawn size with the smallest when that is a
/// power of two, else takes off the remainder), so `bssplit=4k/50:6k/50` writes 4 KiB
/// blocks only.
fn aligned_split(split: &[(u64, f64)], unaligned: bool) -> Vec<(u64, f64)> {
    let min = split.iter().map(|x| x.0).min().unwrap_or(0);
    if unaligned || min == 0 {
        return split.to_vec();
    }
    split
        .iter()
        .map(|&(bs, pct)| {
            let b = if min.is_power_of_two() {
                bs & !(min - 1)
            } else {
                bs - bs % min
            };
            (b, pct)
        })
        .collect()
}

#[cfg(test)]
mod filename_format_tests {
    #[test]
    fn keywords_expand_once_and_take_a_width() {
        let f = |s: &str| super::expand_filename_format_rank(s, "j$jobnum", 3, 12, 5);
        assert_eq!(f("$jobname.$jobnum.$filenum"), "j$jobnum.3.12");
        assert_eq!(f("t.$rank:8"), "t.00000005");
        assert_eq!(f("t.$jobnum:8.$filenum:3"), "t.00000003.012");
        assert_eq!(f("a:$filenum:b $x $"), "a:12:b $x $");
        assert_eq!(f("$rank:123"), "5:123");
    }
}
