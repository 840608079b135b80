//! One repetition's phases: the fathom job of each step (write, read, check), run on every
//! rank together, and the figures rank 0 gathers.

use super::report::{Out, Row};
use super::tasks::{read_task, write_check_task, Nodes};
use super::{Opts, Phase, Place};
use anyhow::{anyhow, bail, Result};
use fathom::{Engine, Job, RwKind};

/// What a job of the run does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Write,
    /// The read phase; with `-R` it checks what it reads (IOR 4.0's READCHECK: timed, in
    /// the table).
    Read,
    /// `-W`: read the data just written back and check it (not timed, not in the table).
    Check,
}

impl Step {
    /// Whether the step compares what it reads with what was written.
    fn checks(self, o: &Opts) -> bool {
        self == Step::Check || (self == Step::Read && o.check_read)
    }
}

/// The fathom job of one step: every task of this rank over its file, its region of the
/// shared file or its blocks of IOR's segments.
pub(super) fn job(o: &Opts, step: Step, at: Place, limit: Option<u64>) -> Result<fathom::JobSpec> {
    let o = &o.on_fs_of(at);
    let write = step == Step::Write;
    let per_task = o.block * o.segments;
    let kind = match (write, o.random) {
        (true, false) => RwKind::Write,
        (true, true) => RwKind::RandWrite,
        (false, false) => RwKind::Read,
        (false, true) => RwKind::RandRead,
    };
    let name = match step {
        Step::Write => "write",
        Step::Read => "read",
        Step::Check => "check",
    };
    let mut b = Job::builder(name)
        .engine(if o.mmap { Engine::Mmap } else { Engine::Psync })
        .rw(kind)
        .bs(o.transfer)
        .numjobs(o.tasks)
        .directory(&o.dir)
        .direct(o.direct)
        // At most IOR's pairs a stonewalled phase left (or -O
        // stoneWallingWearOutIterations asks for).
        .option(
            "number_ios",
            limit
                .map_or(per_task / o.transfer, |l| l.min(per_task / o.transfer))
                .to_string(),
        )
        .flag("group_reporting")
        // IOR does not preallocate: a file grows by its writes (a stonewalled phase's
        // files hold what was written, and -b 9920000m reserves nothing).
        .option("fallocate", "none");
    // -D: the write and read phases stop at IOR's deadline.
    // (After a prefill, what is left of it: IOR's deadline counts from before it.)
    if o.deadline > 0 && step != Step::Check {
        let runtime = match o.deadline_left {
            Some(left) => format!("{}us", left.as_micros().max(1)),
            None => o.deadline.to_string(),
        };
        b = b.option("runtime", runtime);
    }
    // -G: with threads (fathom's data), the seed of the data.
    if let (Some(g), false) = (o.signature, o.ior_data()) {
        b = b.option("randseed", g.to_string());
    }
    // -z with threads (fathom's extension): fathom's random order over each task's
    // region, from --random-offset-seed's seed.
    if let (Some(seed), true) = (o.random_offset_seed, o.random && !o.ior_data()) {
        b = b.option("randseed", seed.to_string());
    }
    if o.random && !o.ior_data() && !o.file_per_proc && o.segments > 1 {
        bail!(
            "-z (random offsets) with a segmented shared file and -N threads is not \
             supported; run the tasks as ranks under mpirun, or use -F or -s 1"
        );
    }
    if write && o.fsync_each {
        b = b.option("fsync", "1");
    }
    // -O interIODelay: IOR sleeps that long after each transfer of a write or read (a
    // checking read does not), within the phase's time.
    if o.inter_io_delay > 0 && !step.checks(o) {
        b = b.option("thinktime", o.inter_io_delay.to_string());
    }
    if o.file_per_proc {
        b = b
            .option("filename_format", o.task_format(at))
            .size(per_task);
    } else if o.random && o.ior_data() {
        // -z: IOR's order (below) goes over every task's blocks of the segments it
        // reaches (a capped read or check only the first few).
        let n = u64::from(at.ranks().max(1));
        let per_segment = o.order(at).per_segment().max(1);
        let segs = limit.map_or(o.segments, |l| l.div_ceil(per_segment).clamp(1, o.segments));
        b = b
            .option("filename", o.shared_name())
            .size(segs * n * o.block);
    } else if o.segments > 1 {
        // The same layout as strided zones, as many segments as IOR takes (ior-hard's
        // ten million): task t starts at t x block, does a block, skips the other
        // tasks' blocks, and its region ends with its last block.
        // With a cap on the transfers (a stonewalled write's pairs), only the segments
        // they reach (a check's table of what it reads stays that small).
        let n = u64::from(at.ranks().max(1)) * o.tasks as u64;
        let segs = limit.map_or(o.segments, |l| {
            l.div_ceil(o.block / o.transfer).clamp(1, o.segments)
        });
        b = b
            .option("filename", o.shared_name())
            .option("offset_increment", o.block.to_string())
            .option("zonemode", "strided")
            .option("zonesize", o.block.to_string())
            .option("zoneskip", ((n - 1) * o.block).to_string())
            .option("io_size", (segs * o.block).to_string())
            .size(((segs - 1) * n + 1) * o.block);
    } else {
        // One region per task, rank after rank (the plan numbers the clones of every rank
        // in order).
        b = b
            .option("filename", o.shared_name())
            .option("offset_increment", per_task.to_string())
            .size(per_task);
    }
    // -e: IOR's fsync after the phase's writes; with -O stoneWallingWearOut, after the
    // ones past the deadline too (not in the stonewall's time).
    if write && o.fsync && !(o.deadline > 0 && o.wear_out) {
        b = b.option("end_fsync", "1");
    }
    // IOR drops no cache: a read goes through what the page cache holds (IOR's -C reads
    // another node's data to get past it).
    b = b.option("invalidate", "0");
    // -W/-R: one task a process writes IOR's data, which the check compares; threads
    // of one process (fathom's -N alone) carry a checked header per transfer instead.
    // (No verify state file: IOR leaves nothing beside its test files.)
    if (write && (o.check_write || o.check_read) || step.checks(o)) && !o.ior_data() {
        b = b
            .option("verify", "crc32c")
            .option("verify_state_save", "0");
        if write {
            b = b.option("do_verify", "0");
        }
    }
    // IOR's check counts every damaged transfer and goes on.
    if step.checks(o) {
        b = b.option("continue_on_error", "verify");
    }
    // Nothing is laid out before a step: IOR creates its files as it opens them (the
    // write phase removed them first, unless -E: then what is there is written into,
    // never made anew), and a read or check goes through the files as they are, even
    // when a stonewalled write left them short. Its MMAP API sizes a file it writes.
    if !(write && o.mmap) {
        b = b.option("create_on_open", "1");
    }
    // -z (one task a process): IOR's own order, each offset made as it is issued.
    let mut order = None;
    if o.random && o.ior_data() {
        let n = o.transfer_count(at, limit);
        let ord = o.order(at);
        order = Some(fathom_job::IoOrder::new(move |k| {
            (k < n).then(|| ord.at(k))
        }));
        // (The order replaces fathom's random offsets: no map of them.)
        b = b
            .option("number_ios", n.max(1).to_string())
            .option("norandommap", "1");
    }
    let mut spec = b.build()?;
    spec.io_order = order;
    spec.control.range_locks = o.range_locks && !o.mmap;
    // -e: once, after the phase's writes.
    spec.control.sync_at_end_only = true;
    spec.engine.single_attempt = o.single_attempt && !o.mmap;
    ior_data(o, step, at, &mut spec);
    Ok(spec)
}

/// `--randomPrefill`'s writes before a -z write phase: each task's blocks of every
/// segment, in order, in writes of the prefill's size, of 0xFF bytes under IOR's packet
/// stamps (IOR's prefill buffer, stamped as each write's). Run on every rank together,
/// then a barrier (IOR's, before the random transfers). Returns this rank's time in it,
/// the barrier's wait included (IOR's phase time holds both).
fn prefill(o: &Opts, at: Place) -> Result<f64> {
    if at.idle() {
        at.cl.barrier();
        at.cl.barrier();
        return Ok(0.0);
    }
    let mut p = o.clone();
    p.random = false;
    p.transfer = o.prefill;
    p.deadline = 0;
    p.deadline_left = None;
    p.fsync = false;
    p.check_write = false;
    p.check_read = false;
    p.wear_out_iterations = 0;
    let mut job = job(&p, Step::Write, at, None)?;
    job.buffer_pattern = Some(vec![0xFF; o.prefill as usize]);
    if o.ior_data() {
        job.io_data = ior_stamps(o.packet, o.signature.unwrap_or(0) as i32, at.data_of);
    }
    at.cl.barrier();
    let t = std::time::Instant::now();
    if let Some(e) = run_job(job, at)?.error_text {
        bail!("write phase (random prefill): {e}");
    }
    at.cl.barrier();
    Ok(t.elapsed().as_secs_f64())
}

/// IOR 4.0's -z offsets within one segment for the task whose data `at` goes through,
/// drawn as IOR draws them with glibc's random(): with -F every transfer of the task's
/// block, shuffled (seeded with --random-offset-seed plus the task's number, else the
/// test's seed); on a shared file each transfer of all the tasks' blocks goes to a task
/// drawn at random (every task draws alike from the one seed and keeps its own), then
/// shuffled.
fn random_offsets(o: &Opts, at: Place) -> Vec<u64> {
    let pretend = at.data_of;
    let seed = if o.file_per_proc && o.random_offset_seed.is_some() {
        o.z_seed + i64::from(pretend)
    } else {
        o.z_seed
    };
    let mut g = super::tasks::GlibcRand::new(seed as u32);
    let mut v: Vec<u64> = if o.file_per_proc {
        (0..o.block / o.transfer).map(|i| i * o.transfer).collect()
    } else {
        let tasks = at.ranks().max(1);
        (0..o.block * u64::from(tasks) / o.transfer)
            .filter(|_| g.next() % tasks == pretend)
            .map(|i| i * o.transfer)
            .collect()
    };
    let n = v.len();
    for i in 0..n {
        let k = g.next() as usize % n;
        v.swap(k, i);
    }
    v
}

/// Transfers as the log a job replays: the task's file, each transfer at its offset, in
/// order (written to the temporary folder as `{prefix}PID-RANK-DIR.log`; the caller
/// removes it).
fn transfer_log(
    o: &Opts,
    at: Place,
    write: bool,
    offsets: impl Iterator<Item = u64>,
    prefix: &str,
) -> Result<std::path::PathBuf> {
    let file = std::path::absolute(o.task_file(at))?;
    let f = file.display();
    let dir = if write { "write" } else { "read" };
    let mut log = format!("fio version 2 iolog\n{f} add\n{f} open\n");
    for off in offsets {
        log.push_str(&format!("{f} {dir} {off} {}\n", o.transfer));
    }
    log.push_str(&format!("{f} close\n"));
    let path = std::env::temp_dir().join(format!(
        "{prefix}{}-{}-{dir}.log",
        std::process::id(),
        at.rank()
    ));
    std::fs::write(&path, log)?;
    Ok(path)
}

/// IOR's data (one task a process), as IOR 4.0 writes it with `-l`'s packets, so the
/// files are IOR's byte for byte and -W/-R compare what they read with the data of the
/// task that wrote it: the timestamp packets (the default) hold the same words in every
/// transfer, word i `rank << 32 | (signature + i)` (the signature the repetition's time
/// stamp or -G's value); the offset and incompressible packets stamp the first word of
/// each 4 KiB with the transfer's offset; the random packets are made from it.
fn ior_data(o: &Opts, step: Step, at: Place, spec: &mut fathom::JobSpec) {
    if !o.ior_data() {
        return;
    }
    let p = ior_pattern(o.packet, o.transfer, o.stamp, at.data_of);
    let stamps = ior_stamps(o.packet, o.signature.unwrap_or(0) as i32, at.data_of);
    match step {
        Step::Write => {
            spec.buffer_pattern = Some(p);
            spec.io_data = stamps;
        }
        Step::Read if !o.check_read => {}
        Step::Check | Step::Read => {
            spec.verify.kind = Some(fathom_job::VerifyKind::Pattern);
            spec.verify.pattern = Some(p);
            spec.verify.pattern_offsets.clear();
            spec.verify.state_save = false;
            spec.io_data = stamps;
        }
    }
}

/// IOR 4.0's transfer buffer of `rank` with time stamp signature `stamp`, before a
/// write's own stamps.
pub(super) fn ior_pattern(packet: super::Packet, transfer: u64, stamp: i32, rank: u32) -> Vec<u8> {
    let words = transfer / 8;
    let mut p = Vec::with_capacity(transfer as usize);
    // IOR adds an int to a size_t: the signature is sign-extended.
    let timestamp = |i: u64| (u64::from(rank) << 32) | (stamp as i64 as u64).wrapping_add(i);
    let same = {
        // One word, made anew for each (IOR's seed is reset every word).
        let mut seed = (stamp as u32).wrapping_add(rank);
        let hi = u64::from(rand_r(&mut seed)) << 32;
        hi | u64::from(rand_r(&mut seed))
    };
    for i in 0..words {
        let w = match packet {
            super::Packet::Timestamp | super::Packet::Offset => timestamp(i),
            super::Packet::Incompressible => same,
            // Every word is the write's own.
            super::Packet::Random => 0,
        };
        p.extend_from_slice(&w.to_le_bytes());
    }
    // IOR's bytes past the last whole word: their index.
    p.extend((words * 8..transfer).map(|i| i as u8));
    p
}

/// What IOR 4.0 writes into each transfer at `offset` on top of [`ior_pattern`] (None
/// for the timestamp packets, the same in every transfer): the offset and incompressible
/// packets' word at each 4 KiB, the k-th `rank << 32 | (offset × k mod 2³²)`; the random
/// packets' every word, from glibc's rand_r seeded with -G's value (0 without), the rank
/// and the offset.
pub(super) fn ior_stamps(
    packet: super::Packet,
    signature: i32,
    rank: u32,
) -> Option<fathom_job::IoData> {
    let hi = u64::from(rank) << 32;
    match packet {
        super::Packet::Timestamp => None,
        // (A transfer under 8 bytes IOR leaves as it is.)
        super::Packet::Offset | super::Packet::Incompressible => {
            Some(fathom_job::IoData::new(move |b: &mut [u8], offset: u64| {
                if b.len() < 8 {
                    return;
                }
                let words = b.len() / 8;
                for (k, i) in (0..words).step_by(512).enumerate() {
                    let lo = (offset as u32).wrapping_mul(k as u32 + 1);
                    b[i * 8..i * 8 + 8].copy_from_slice(&(hi | u64::from(lo)).to_le_bytes());
                }
            }))
        }
        super::Packet::Random => Some(fathom_job::IoData::new(move |b: &mut [u8], offset: u64| {
            if b.len() < 8 {
                return;
            }
            let mut seed = (signature as u32)
                .wrapping_add(rank)
                .wrapping_add(offset as u32);
            let mut state = u64::from(rand_r(&mut seed));
            for w in b.chunks_exact_mut(8) {
                state = state.wrapping_mul(0x9e37_ffff_fffc_0001) >> 3;
                w.copy_from_slice(&state.to_le_bytes());
            }
        })),
    }
}

/// glibc's `rand_r`: three steps of its linear congruential generator, taking 11, 10
/// and 10 bits of them.
fn rand_r(seed: &mut u32) -> u32 {
    let mut next = *seed;
    let mut step = || {
        next = next.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        next / 65_536
    };
    let mut r = step() % 2048;
    r = (r << 10) ^ (step() % 1024);
    r = (r << 10) ^ (step() % 1024);
    *seed = next;
    r
}

/// Run `step`'s job on every rank, started together; this rank's result (None on a rank
/// that does not take part).
pub(super) fn run_step(
    o: &Opts,
    step: Step,
    at: Place,
    limit: Option<u64>,
) -> Result<Option<fathom::JobResult>> {
    if at.idle() {
        at.cl.barrier();
        return Ok(None);
    }
    let job = job(o, step, at, limit)?;
    // Every rank lays out and starts together (IOR's barrier before each phase).
    at.cl.barrier();
    run_job(job, at).map(Some)
}

/// Run one of a step's jobs on this rank; its result.
fn run_job(job: fathom::JobSpec, at: Place) -> Result<fathom::JobResult> {
    let mut runner = fathom::Runner::new(job);
    // A rank stopped alone tells the others, which stop this phase too.
    if let Some(s) = at.cl.stop_signals() {
        runner = fathom::cluster::stop_with_peers(runner, s);
    }
    let r = crate::stop::run_runner_with(runner, at.limits())?;
    r.jobs
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("stopped before the run started"))
}

/// A task's transfers in IOR's order, made as they are needed (IOR 4.0's ior-hard runs
/// ten million segments): the offsets within one segment, repeated a stride on for each.
pub(super) struct Order {
    one: Vec<u64>,
    stride: u64,
    segments: u64,
}

impl Order {
    /// The transfers of one segment.
    pub(super) fn per_segment(&self) -> u64 {
        self.one.len() as u64
    }
    /// Every transfer of the phase.
    pub(super) fn len(&self) -> u64 {
        self.one.len() as u64 * self.segments
    }
    /// The offset of transfer `k` (past the last, round from the first again).
    pub(super) fn at(&self, k: u64) -> u64 {
        let n = self.one.len() as u64;
        let k = k % self.len().max(1);
        self.one[(k % n) as usize] + (k / n) * self.stride
    }
}

/// What a phase moved on this rank.
#[derive(Default, Clone, Copy)]
struct Moved {
    bytes: u64,
    ios: u64,
}

impl Moved {
    fn of(j: &fathom::JobResult, write: bool) -> Moved {
        let d = &j.stats.dirs[usize::from(write)];
        Moved {
            bytes: d.bytes,
            ios: d.ios,
        }
    }
}

/// A phase's figures (at rank 0), and the pairs (transfers per task) the steps after it
/// stop at when a deadline cut it: the most any task did with stoneWallingWearOut (every
/// task then goes on to it), else this rank's own.
pub(super) struct Done {
    pub(super) phase: Option<Phase>,
    pub(super) pairs: Option<u64>,
    /// IOR's lines about it (rank 0): the stonewall and file size warnings.
    pub(super) notes: String,
    /// `-R`: the transfers whose check failed, over every rank (at rank 0), and the
    /// first failure (rank 0's).
    pub(super) failed: (u64, Option<String>),
    /// This rank's times as IOR's outlier check (-j) takes them: the start (seconds since
    /// the epoch), the open, transfer and close times, and the end.
    pub(super) times: [f64; 5],
}

/// One phase (write or read) of one iteration on every rank: the ranks start together,
/// each runs its tasks, and rank 0 gets the phase's figures over all of them (None on
/// the other ranks): the bytes and transfers of every task over the slowest rank's time,
/// as IOR's aggregate bandwidth. `limit`: at most this many transfers per task.
pub(super) fn phase(o: &Opts, write: bool, at: Place, limit: Option<u64>) -> Result<Done> {
    let what = if write { "write phase" } else { "read phase" };
    let mut pre_note = String::new();
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    // --randomPrefill: the prefill first, in the phase's time (with -D, within its
    // deadline), not in its bytes.
    let mut pre = 0.0;
    let mut with_left = None;
    if write && o.prefill > 0 {
        pre = prefill(o, at)?;
        if o.verbose >= 2 && at.root() {
            // (Printed with the phase's other lines, after it.)
            pre_note = format!("Random prefill took: {pre:.6}s\n");
        }
        if o.deadline > 0 {
            let mut left = o.clone();
            let d = std::time::Duration::from_secs(o.deadline);
            left.deadline_left = Some(d.saturating_sub(std::time::Duration::from_secs_f64(pre)));
            with_left = Some(left);
        }
    }
    let o = with_left.as_ref().unwrap_or(o);
    let j = run_step(o, if write { Step::Write } else { Step::Read }, at, limit)?;
    let after = std::time::Instant::now();
    // A rank that takes no part adds nothing.
    let mut moved = Moved::default();
    let mut secs = 0.0;
    if let Some(j) = &j {
        if let Some(e) = &j.error_text {
            // A read past the end of a file (one a stonewalled write left short) is
            // IOR's "cannot read from file".
            let hint = if write {
                ""
            } else {
                "; if the file is shorter than the read: write it whole first, or read \
                 only what a stonewalled write left (-O stoneWallingStatusFile=FILE or \
                 stoneWallingWearOutIterations=N)"
            };
            bail!("{what}: {e}{hint}");
        }
        moved = Moved::of(j, write);
        let want = o.transfer_count(at, limit) * o.tasks as u64;
        // Fewer only when the deadline (-D) or a signal cut the phase.
        let cut = o.deadline > 0 || crate::stopped();
        if moved.ios > want || (moved.ios < want && !cut) {
            bail!(
                "{} phase did {} transfers, expected {want}",
                if write { "write" } else { "read" },
                moved.ios
            );
        }
        secs = j.elapsed.as_secs_f64().max(j.stats.runtime.as_secs_f64()) + pre;
    }
    let verify = j.as_ref().and_then(|j| j.stats.verify.as_ref());
    let failed = verify.map_or(0, |v| v.failures);
    let first = verify.and_then(|v| v.first.first().cloned());
    let mut notes = pre_note;
    let mut pairs = None;
    let mut stonewall = None;
    // This rank's times as IOR splits them: opening (fathom's setup of the files), the
    // transfers, and what came after them (fsync, close).
    let (mut open, mut rdwr) = j.as_ref().map_or((0.0, 0.0), |j| {
        (j.layout.as_secs_f64(), j.stats.runtime.as_secs_f64() + pre)
    });
    if o.deadline > 0 {
        let own = moved.ios / u64::from(o.tasks.max(1));
        pairs = Some(own);
        if o.wear_out {
            let (m, sw) = wear_out(o, write, true, at, own, &mut moved, &mut notes, secs)?;
            pairs = Some(m);
            stonewall = sw;
            if !at.idle() {
                let more = after.elapsed().as_secs_f64();
                secs += more;
                rdwr += more;
            }
        }
    }
    // -O minTimeDuration: IOR goes through the phase's transfers again, whole passes,
    // until the phase has run that long (each rank on its own clock).
    if o.min_time > 0 && j.is_some() {
        let pass = o.transfer_count(at, limit);
        let min = o.min_time as f64;
        let ran = |secs: f64| secs + after.elapsed().as_secs_f64();
        while pass > 0 && ran(secs) < min && !crate::stopped() {
            // As many passes as the time left holds at the pace so far, then see again.
            let per_pass = ran(secs) / (moved.ios.max(1) as f64 / pass as f64);
            let passes = ((min - ran(secs)) / per_pass.max(1e-6))
                .ceil()
                .clamp(1.0, 1e6) as u64;
            let more = go_on(o, write, at, 0, pass * passes)?;
            moved.bytes += more.bytes;
            moved.ios += more.ios;
        }
        let more = after.elapsed().as_secs_f64();
        secs += more;
        rdwr += more;
    }
    open = open.min(secs);
    rdwr = rdwr.min(secs - open);
    // Every rank has closed its files before the size is taken (IOR's barrier after the
    // close): another rank's last writes may end the shared file.
    at.cl.barrier();
    let stat = stat_size(o, at);
    let active = if j.is_some() { 1.0 } else { 0.0 };
    let mine = [
        moved.bytes as f64,
        moved.ios as f64,
        secs,
        active,
        stat as f64,
        open,
        rdwr,
        secs - open - rdwr,
        failed as f64,
    ];
    let all = at.cl.gather_f64(&mine);
    let times = [started, open, rdwr, secs - open - rdwr, started + secs];
    if !at.root() {
        return Ok(Done {
            phase: None,
            pairs,
            notes,
            failed: (0, None),
            times,
        });
    }
    let sum = |k: usize| all.iter().map(|v| v[k]).sum::<f64>();
    let max = |k: usize| all.iter().map(|v| v[k]).fold(0.0, f64::max);
    // IOR's check of the file size against what was meant and what moved.
    let expected = o.block * o.segments * u64::from(o.tasks) * u64::from(at.ranks());
    let moved_all = sum(0) as u64;
    let stat_all = if o.file_per_proc { sum(4) as u64 } else { stat };
    if expected != moved_all || stat_all != moved_all {
        notes.push_str(&format!(
            "WARNING: Expected aggregate file size       = {expected}\n\
             WARNING: Stat() of aggregate file size      = {stat_all}\n\
             WARNING: Using actual aggregate bytes moved = {moved_all}\n"
        ));
        if o.deadline > 0 {
            notes.push_str("WARNING: Maybe caused by deadlineForStonewalling\n");
        }
    }
    if let Some(p) = &o.rank_csv {
        rank_csv(p, write, &all, moved_all)?;
    }
    // IOR's latency: a task's transfer time over the transfers of one block, the least
    // over the tasks.
    let per_block = (o.block / o.transfer).max(1) as f64;
    let latency = all
        .iter()
        .filter(|v| v[3] > 0.0)
        .map(|v| v[6] / per_block)
        .fold(f64::INFINITY, f64::min);
    Ok(Done {
        phase: Some(Phase {
            bytes: moved_all as f64,
            ios: sum(1),
            open: max(5),
            rdwr: max(6),
            close: max(7),
            total: max(2).max(1e-9),
            latency: if latency.is_finite() { latency } else { 0.0 },
            stonewall,
        }),
        pairs,
        notes,
        failed: (sum(8) as u64, first),
        times,
    })
}

/// The head of a saveRankPerformanceDetailsCSV file, IOR's.
pub(super) const RANK_CSV_HEAD: &str =
    "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n";

/// `-O saveRankPerformanceDetailsCSV`: a line per task of the phase (rank 0 appends them):
/// its time with and without the open and close, and the bytes of an average task over
/// each, in C's `%.10e` as IOR writes them.
fn rank_csv(path: &std::path::Path, write: bool, all: &[Vec<f64>], moved: u64) -> Result<()> {
    use std::io::Write;
    let live: Vec<&Vec<f64>> = all.iter().filter(|v| v[3] > 0.0).collect();
    let share = moved as f64 / live.len().max(1) as f64;
    let access = if write { "write" } else { "read" };
    let mut text = String::new();
    for (i, v) in live.iter().enumerate() {
        let (total, rdwr) = (v[2], v[6]);
        text.push_str(&format!(
            "{access},{i},{},{},{},{}\n",
            c_sci(total),
            c_sci(rdwr),
            c_sci(share / total),
            c_sci(share / rdwr)
        ));
    }
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| anyhow!("Cannot open saveRankPerformanceDetailsCSV file for writes! ({e})"))
}

/// A number as C's `%.10e` prints it (`1.2345678900e-03`, `inf`).
fn c_sci(x: f64) -> String {
    if x.is_nan() {
        return "-nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let s = format!("{x:.10e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// The size of the file(s) this rank's step went through (the shared file at rank 0),
/// for IOR's file size check.
fn stat_size(o: &Opts, at: Place) -> u64 {
    let len = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    if o.file_per_proc {
        o.task_files(at).iter().map(|f| len(f)).sum()
    } else if at.root() {
        len(&o.dir.join(o.shared_name()))
    } else {
        0
    }
}

/// IOR removes the test files before a write phase (the shared file at rank 0, each
/// task's own), so a longer file from an earlier run does not stay longer; `-vvv` says
/// so of each file that was there (IOR's `task 0 removing FILE`).
fn remove_files(o: &Opts, at: Place, out: &mut Out) {
    let files = if o.file_per_proc {
        o.task_files(at)
    } else if at.root() {
        vec![o.dir.join(o.shared_name())]
    } else {
        Vec::new()
    };
    let mut lines = String::new();
    for f in files {
        if std::fs::remove_file(&f).is_ok() && o.verbose >= 3 {
            lines.push_str(&format!("task {} removing {}\n", at.rank(), o.shown(&f)));
        }
    }
    rank_log(at, out, &lines);
}

/// `-D` with `-O stoneWallingWearOut=1`: at the deadline every task has done `own`
/// transfers; the most any did is the phase's count, and every task goes on to it (in
/// IOR's order: its blocks segment by segment), so all move the same data. Rank 0 notes
/// IOR's stonewall line. Returns that count. (`go`: false for a -W check, whose
/// transfers past the deadline fathom would only read, not check: it gives the line.)
#[allow(clippy::too_many_arguments)]
fn wear_out(
    o: &Opts,
    write: bool,
    go: bool,
    at: Place,
    own: u64,
    moved: &mut Moved,
    notes: &mut String,
    stonewall_secs: f64,
) -> Result<(u64, Option<(f64, f64)>)> {
    let active = if at.idle() { 0.0 } else { 1.0 };
    let all = at
        .cl
        .gather_f64(&[active, own as f64, moved.bytes as f64, stonewall_secs]);
    let mut most = 0.0;
    let mut stonewall = None;
    if at.root() {
        let live: Vec<&Vec<f64>> = all.iter().filter(|v| v[0] > 0.0).collect();
        most = live.iter().map(|v| v[1]).fold(0.0, f64::max);
        let least = live.iter().map(|v| v[1]).fold(f64::INFINITY, f64::min);
        let min_data = live.iter().map(|v| v[2]).fold(f64::INFINITY, f64::min);
        let mean_data = live.iter().map(|v| v[2]).sum::<f64>() / live.len().max(1) as f64;
        let time = live.iter().map(|v| v[3]).fold(0.0, f64::max);
        stonewall = Some((time, mean_data));
        if o.verbose >= 1 {
            // IOR's line of each task (printed by each; here in rank order).
            for (r, v) in all.iter().enumerate().filter(|(_, v)| v[0] > 0.0) {
                notes.push_str(&format!("{r}: stonewalling pairs accessed: {}\n", v[1]));
            }
        }
        let gib = |b: f64| b / 1024.0 / 1024.0 / 1024.0;
        notes.push_str(&format!(
            "stonewalling pairs accessed min: {least} max: {most} -- min data: {:.1} GiB \
             mean data: {:.1} GiB time: {time:.1}s\n",
            gib(min_data),
            gib(mean_data)
        ));
    }
    let most = at.cl.broadcast(most) as u64;
    if !at.idle() && own < most && go {
        // (With -e, its writes end with the phase's fsync.)
        let rest = go_on(o, write, at, own, most)?;
        moved.bytes += rest.bytes;
        moved.ios += rest.ios;
    } else if !at.idle() && write && o.fsync {
        // -e: the fsync after the phase's writes, this task's all done by the deadline.
        let f = o.task_file(at);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .and_then(|f| f.sync_all())
            .map_err(|e| anyhow!("write phase: fsync of {}: {e}", f.display()))?;
    }
    Ok((most, stonewall))
}

/// This rank's task does IOR's transfers `from..to` of its phase (its blocks, segment by
/// segment, as IOR orders them): a replay of those transfers.
fn go_on(o: &Opts, write: bool, at: Place, from: u64, to: u64) -> Result<Moved> {
    let dir = if write { "write" } else { "read" };
    // The phase's transfers in IOR's order, from where the deadline cut it, wrapping
    // round to the first segment as IOR does.
    let order = o.order(at);
    if order.len() == 0 || from >= to {
        // A task IOR's -z draws gave no transfer of a shared file has none to go on with
        // (IOR 4.0.0 spins forever there).
        return Ok(Moved::default());
    }
    let offsets = (from..to).map(|k| order.at(k));
    let path = transfer_log(o, at, write, offsets, "fathom-ior-wearout-")?;
    let mut b = Job::builder(dir)
        .engine(if o.mmap { Engine::Mmap } else { Engine::Psync })
        .direct(o.direct)
        .option("read_iolog", path.display().to_string())
        .option("replay_no_stall", "1")
        .option("invalidate", "0");
    if write && o.fsync_each {
        b = b.option("fsync", "1");
    }
    // -e: IOR's fsync after all the phase's writes, the ones after the deadline included.
    if write && o.fsync {
        b = b.option("end_fsync", "1");
    }
    if write && (o.check_write || o.check_read) && !o.ior_data() {
        b = b
            .option("verify", "crc32c")
            .option("verify_state_save", "0")
            .option("do_verify", "0");
    }
    let r = b.build().map_err(anyhow::Error::from).and_then(|mut job| {
        job.control.sync_at_end_only = true;
        if write {
            ior_data(o, Step::Write, at, &mut job);
        }
        Ok(crate::stop::run_runner(fathom::Runner::new(job))?)
    });
    let _ = std::fs::remove_file(&path);
    let j = r?
        .jobs
        .into_iter()
        .next()
        .ok_or_else(|| anyhow!("stopped before the run started"))?;
    if let Some(e) = &j.error_text {
        bail!("{dir} phase (after the deadline): {e}");
    }
    Ok(Moved::of(&j, write))
}

/// `-W`: every task reads the data just written back and checks each transfer (IOR's
/// data, or with threads a checked header per transfer); the transfers that fail, over
/// every rank, at rank 0, as IOR 4.0 counts them, and IOR's warning when any failed.
pub(super) fn check(o: &Opts, at: Place, limit: Option<u64>) -> Result<(u64, String)> {
    let j = run_step(o, Step::Check, at, limit)?;
    let verify = j.as_ref().and_then(|j| j.stats.verify.as_ref());
    let failed = verify.map_or(0, |v| v.failures);
    let first = verify.and_then(|v| v.first.first().cloned());
    // A check that could not read (not a data error) is an error of the run.
    if failed == 0 {
        if let Some(e) = j.as_ref().and_then(|j| j.error_text.as_ref()) {
            bail!("check after write: {e}");
        }
    }
    let all = at.cl.gather_f64(&[failed as f64]);
    let total = all.iter().map(|v| v[0]).sum::<f64>() as u64;
    // -D with the wear-out: IOR's check goes the same way as the phases, its stonewall
    // line too (every task checks the pairs the write left, so none goes on).
    let mut notes = String::new();
    if o.deadline > 0 && o.wear_out {
        let mut moved = j.as_ref().map(|j| Moved::of(j, false)).unwrap_or_default();
        let own = moved.ios / u64::from(o.tasks.max(1));
        let secs = j.as_ref().map_or(0.0, |j| j.stats.runtime.as_secs_f64());
        wear_out(o, false, false, at, own, &mut moved, &mut notes, secs)?;
    }
    notes.push_str(&incorrect_data(o, "write", total, first.as_deref()));
    Ok((total, notes))
}

/// IOR's lines after a check that found `total` transfers wrong (none when it found
/// none): the warning, the data signature used, and with -v fathom's description of
/// rank 0's first failure.
fn incorrect_data(o: &Opts, access: &str, total: u64, first: Option<&str>) -> String {
    if total == 0 {
        return String::new();
    }
    let stamp = o.stamp as u32;
    let mut w = format!(
        "WARNING: Incorrect data on {access} ({total} errors found).\n\n\
         Used Time Stamp {stamp} (0x{stamp:x}) for Data Signature\n"
    );
    if let (Some(first), true) = (first, o.verbose >= 1) {
        w.push_str(&format!("  first on rank 0: {first}\n"));
    }
    w
}

impl Opts {
    /// The per-task files' names (-F): testFile.TASK; under MPI testFile.RANK (one task a
    /// rank, as IOR) or testFile.RANK.TASK (several).
    pub(super) fn task_format(&self, at: Place) -> String {
        // IOR's TESTFILE.00000003: the task's number in eight digits (here the rank's,
        // or one process's thread's).
        let (task, folder) = match (at.ranks() > 1, self.tasks > 1) {
            (false, _) => ("$jobnum:8", "$jobnum"),
            (true, false) => ("$rank:8", "$rank"),
            (true, true) => ("$rank:8.$jobnum", "$rank"),
        };
        // -u: IOR's DIR/TASK/testFile.TASK.
        let dir = if self.unique_dir {
            format!("{folder}/")
        } else {
            String::new()
        };
        format!("{dir}{}.{task}{}", self.file_name(), self.rep_suffix())
    }
    /// `-m`: the repetition's number after the name, as IOR adds it.
    pub(super) fn rep_suffix(&self) -> String {
        self.rep.map_or(String::new(), |r| format!(".{r}"))
    }
    /// These options for repetition `i` (with `-m`, its own files).
    pub(super) fn for_rep(&self, i: u32) -> Opts {
        let mut o = self.clone();
        o.rep = self.multi_file.then_some(i);
        o
    }
    /// The per-task files of the task (rank) `at` goes through (none on an idle rank).
    pub(super) fn task_files(&self, at: Place) -> Vec<std::path::PathBuf> {
        let o = self.on_fs_of(at);
        let tasks = if at.idle() { 0 } else { o.tasks };
        (0..tasks)
            .map(|t| {
                let name = fathom::plan::expand_filename_format_rank(
                    &o.task_format(at),
                    "",
                    t,
                    0,
                    at.data_of,
                );
                o.dir.join(name)
            })
            .collect()
    }
    /// How many transfers of `at`'s task its phase does (its [`Order`]'s, at most
    /// `limit`).
    pub(super) fn transfer_count(&self, at: Place, limit: Option<u64>) -> u64 {
        let n = self.order(at).len();
        limit.map_or(n, |l| l.min(n))
    }
    /// IOR's order of `at`'s task's transfers: the offsets within one segment (IOR's -z
    /// order, drawn once, or its blocks in turn), a stride on for each segment.
    pub(super) fn order(&self, at: Place) -> Order {
        let tasks = u64::from(at.ranks().max(1));
        let me = u64::from(at.data_of);
        let one: Vec<u64> = if self.random && self.ior_data() {
            random_offsets(self, at)
        } else {
            let base = if self.file_per_proc {
                0
            } else {
                me * self.block
            };
            (0..self.block / self.transfer)
                .map(|j| base + j * self.transfer)
                .collect()
        };
        let stride = if self.file_per_proc {
            self.block
        } else {
            tasks * self.block
        };
        Order {
            one,
            stride,
            segments: self.segments,
        }
    }
    /// The options with the test file on the file system of the task whose data `at`
    /// goes through (-o A@B with -F: IOR's file name T mod count for task T).
    pub(super) fn on_fs_of(&self, at: Place) -> std::borrow::Cow<'_, Opts> {
        if !self.file_per_proc || self.other_files.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let k = at.data_of as usize % (self.other_files.len() + 1);
        if k == 0 {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut o = self.clone();
        let (dir, name) = &self.other_files[k - 1];
        o.dir = dir.clone();
        if name.is_some() {
            o.name = name.clone();
        }
        std::borrow::Cow::Owned(o)
    }
    /// The (first) file the task `at` goes through.
    pub(super) fn task_file(&self, at: Place) -> std::path::PathBuf {
        if self.file_per_proc {
            self.task_files(at).swap_remove(0)
        } else {
            self.dir.join(self.shared_name())
        }
    }
    /// The run writes IOR's data: one task a process, as IOR (threads of one process
    /// write fathom's).
    pub(super) fn ior_data(&self) -> bool {
        self.tasks == 1
    }
    /// IOR's "test filename": `-o` as given, else the shared file's path.
    pub(super) fn test_file_name(&self) -> String {
        self.test_file
            .clone()
            .unwrap_or_else(|| self.shown(&self.dir.join(self.shared_name())))
    }
    /// A path as IOR names it: in the working folder without the `./` that fathom's
    /// folder adds (unless `-o` itself began so).
    pub(super) fn shown(&self, p: &std::path::Path) -> String {
        let s = p.display().to_string();
        let dot = self
            .test_file
            .as_deref()
            .is_some_and(|t| t.starts_with("./"));
        match s.strip_prefix("./") {
            Some(rest) if !dot => rest.to_string(),
            _ => s,
        }
    }
    pub(super) fn file_name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "testFile".into())
    }
    /// The shared file's name: `-o`'s, else IOR's default `testFile`.
    pub(super) fn shared_name(&self) -> String {
        let base = self.file_name();
        format!("{base}{}", self.rep_suffix())
    }
}

/// Every repetition: its write and read phases (each with its -W/-R check) and their
/// result lines. Returns the transfers whose check failed, over every rank (at rank 0).
pub(super) fn iterations(o: &Opts, at: Place, nodes: Nodes, out: &mut Out) -> Result<u64> {
    let cl = at.cl;
    let mut errors = 0u64;
    let t0 = std::time::Instant::now();
    // -T: no phase starts after this many minutes (rank 0's clock decides for all).
    let time_up = || {
        let up = o.max_minutes > 0 && t0.elapsed().as_secs() >= o.max_minutes * 60;
        cl.any(at.root() && up)
    };
    let mut last_pairs = None;
    let mut errors_before = 0;
    let _hog = hog_memory(o, at, nodes, out);
    // -z's seed for the test: --random-offset-seed's, else rank 0's clock (IOR's).
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as u32;
    let z_seed = cl.broadcast(f64::from(clock)) as i64;
    let z_seed = o.random_offset_seed.unwrap_or(z_seed);
    exists_warning(o, at, out)?;
    for i in 0..o.iterations {
        // A signal to any rank stops every rank here.
        if cl.any(crate::stopped()) || time_up() {
            break;
        }
        if i > 0 && o.delay > 0 {
            std::thread::sleep(std::time::Duration::from_secs(o.delay));
        }
        // -m: this repetition's own files.
        let mut o = o.for_rep(i);
        o.z_seed = z_seed;
        // IOR's time stamp signature of the repetition's data (rank 0's clock), or -G's.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let stamp = o.signature.map_or(now as u32 as i32, |g| g as i32);
        o.stamp = cl.broadcast(f64::from(stamp)) as i32;
        if at.root() && o.verbose >= 2 {
            out.log(&format!(
                "Using Time Stamp {} (0x{:x}) for Data Signature\n",
                o.stamp as u32, o.stamp as u32
            ));
        }
        if i == 0 && at.root() {
            out.table_head();
        }
        // The pairs each step stops at: -O stoneWallingWearOutIterations, then what a
        // stonewalled write phase did.
        let mut limit = (o.wear_out_iterations > 0).then_some(o.wear_out_iterations);
        let mut notes = String::new();
        let v1 = at.root() && o.verbose >= 1;
        // Whether a signal stopped the run, as every rank learnt it after a phase.
        let mut after_phase = None;
        if o.write && !time_up() {
            task_line(&o, at, "writing", at, out);
            if !o.existing {
                // IOR removes the test files before it writes them (not with -E).
                remove_files(&o, at, out);
            }
            if v1 {
                out.log(&format!(
                    "Commencing write performance test: {}\n",
                    super::report::now()
                ));
            }
            let d = phase(&o, true, at, limit)?;
            timer_lines(&o, at, &d, true, i, out);
            as_errors(&o, at, &d.notes)?;
            after_phase = Some(report_phase(out, cl, &d, true, i));
            outliers(&o, at, &d, true, out)?;
            limit = d.pairs.or(limit);
            last_pairs = d.pairs.filter(|_| o.wear_out).or(last_pairs);
        }
        let stopped = after_phase.unwrap_or_else(|| cl.any(crate::stopped()));
        if o.check_write && !stopped && !time_up() {
            if v1 {
                out.log(&format!(
                    "Verifying contents of the file(s) just written.\n{}\n\n",
                    super::report::now()
                ));
            }
            let at = at.as_task(write_check_task(&o, nodes, at.ranks(), at.rank()));
            let (n, warn) = check(&o, at, limit)?;
            errors += n;
            as_errors(&o, at, &warn)?;
            out.log(&warn);
        }
        let stopped = cl.any(crate::stopped());
        // -C/-Z: the read phase (and its -R check) goes through another task's data.
        let read_at = at.as_task(read_task(&o, nodes, at.ranks(), at.rank(), i)?);
        // -O stoneWallingStatusFile: the pairs an earlier stonewalled write left.
        if let Some(f) = o.status_file.as_ref().filter(|_| o.read || o.check_read) {
            let n = if at.root() {
                read_status(f, &mut notes)
            } else {
                0.0
            };
            let n = cl.broadcast(n) as u64;
            limit = (n > 0).then_some(n).or(limit);
        }
        // The read phase, -R's too (IOR 4.0 checks as it reads).
        if (o.read || o.check_read) && !stopped && !time_up() {
            task_line(&o, at, "reading", read_at, out);
            if v1 {
                // (IOR's line ends with an empty one.)
                out.log(&format!(
                    "Commencing read performance test: {}\n\n",
                    super::report::now()
                ));
            }
            let d = phase(&o, false, read_at, limit)?;
            timer_lines(&o, at, &d, false, i, out);
            as_errors(&o, at, &notes)?;
            out.log(&notes);
            notes.clear();
            // -R's warning comes before the phase's line, as IOR counts the errors then.
            let (n, first) = &d.failed;
            errors += n;
            let warn = incorrect_data(&o, "read", *n, first.as_deref());
            as_errors(&o, at, &warn)?;
            out.log(&warn);
            as_errors(&o, at, &d.notes)?;
            report_phase(out, cl, &d, false, i);
            outliers(&o, at, &d, false, out)?;
        }
        as_errors(&o, at, &notes)?;
        out.log(&notes);
        // IOR removes the repetition's files at its end (not with -k, nor -K after a
        // check found errors), every rank done with them first; -v times it.
        let found = cl.any(errors > errors_before);
        errors_before = errors;
        if !(o.keep || o.keep_with_error && found) {
            task_line(&o, at, "removing", at, out);
            let t = std::time::Instant::now();
            cl.barrier();
            super::cleanup(&o, at);
            cl.barrier();
            if v1 {
                let secs = t.elapsed().as_secs_f64();
                out.row(Row::Remove { secs, rep: i });
            }
        }
    }
    // IOR's end of the test: -v's Max lines, then the stonewalled write's pairs go to
    // the status file, or on a line of their own.
    out.end_test();
    if let (Some(m), true) = (last_pairs, at.root()) {
        match &o.status_file {
            Some(f) => std::fs::write(f, m.to_string()).map_err(|e| {
                anyhow!("Cannot write to the stonewalling file {}: {e}", f.display())
            })?,
            None => out.log(&format!("Pairs deadlineForStonewallingaccessed: {m}\n")),
        }
    }
    Ok(errors)
}

/// A phase's warnings and its line of the table (rank 0), unless a signal cut it short
/// (its figures are partial); whether one did, asked of every rank (a collective call).
fn report_phase(out: &mut Out, cl: &dyn fathom::Cluster, d: &Done, write: bool, rep: u32) -> bool {
    out.log(&d.notes);
    let stopped = cl.any(crate::stopped());
    if let Some(p) = d.phase.filter(|_| !stopped) {
        out.row(Row::Io { write, p, rep });
    }
    stopped
}

/// `-j N`: after a phase's line, each task whose start, open, transfer, close or end
/// time is more than N seconds off the mean over the tasks says so, as IOR (its
/// warning, with its host and rank; rank 0's among the report's lines).
fn outliers(o: &Opts, at: Place, d: &Done, write: bool, out: &mut Out) -> Result<()> {
    if o.outlier == 0 {
        return Ok(());
    }
    let active = !at.idle();
    let mut mine = vec![f64::from(u8::from(active))];
    mine.extend(d.times);
    let all = at.cl.gather_f64(&mine);
    // (mean, standard deviation) of each time over the tasks, from rank 0 to all.
    let mut stats = [(0.0, 0.0); 5];
    if at.root() {
        let live: Vec<&Vec<f64>> = all.iter().filter(|v| v[0] > 0.0).collect();
        let n = live.len().max(1) as f64;
        for (k, st) in stats.iter_mut().enumerate() {
            let mean = live.iter().map(|v| v[k + 1]).sum::<f64>() / n;
            let var = live.iter().map(|v| (mean - v[k + 1]).powi(2)).sum::<f64>() / n;
            *st = (mean, var.sqrt());
        }
    }
    for st in &mut stats {
        *st = (at.cl.broadcast(st.0), at.cl.broadcast(st.1));
    }
    let host = fathom::facts::host().hostname;
    let access = if write { "write" } else { "read" };
    let names = [
        "start time",
        "elapsed create time",
        "elapsed transfer time",
        "elapsed close time",
        "end time",
    ];
    let mut lines = String::new();
    for ((name, val), (mean, sd)) in names.iter().zip(d.times).zip(stats) {
        if active && (val - mean).abs() > o.outlier as f64 {
            lines.push_str(&format!(
                "WARNING: for {host}, task {}, {access} {name} is {val:.6} (mean={mean:.6}, \
                 stddev={sd:.6})\n\n",
                at.rank()
            ));
        }
    }
    as_errors(o, at, &lines)?;
    rank_log(at, out, &lines);
    Ok(())
}

/// `-M` / `-O memoryPerTask=`: the memory each task of this rank takes and touches (a
/// byte a page, as IOR) for the whole test, IOR's simulation of an application's
/// memory use; a node's share is split over its tasks (IOR's tasks on node 0). `-vvv`
/// says how much, as IOR.
fn hog_memory(o: &Opts, at: Place, nodes: Nodes, out: &mut Out) -> Vec<Vec<u8>> {
    let per_task = if o.memory_per_task > 0 {
        o.memory_per_task
    } else {
        o.memory_per_node / u64::from(nodes.on_node0.max(1))
    };
    if per_task == 0 || at.idle() {
        return Vec::new();
    }
    let mut lines = String::new();
    if o.verbose >= 3 {
        if o.memory_per_task == 0 {
            let node = o.memory_per_node;
            lines.push_str(&format!("This node hogging {node} bytes of memory\n"));
        }
        lines.push_str(&format!("This task hogging {per_task} bytes of memory\n"));
    }
    rank_log(at, out, &lines);
    let page = 4096;
    (0..o.tasks)
        .map(|_| {
            let mut v = vec![0u8; per_task as usize];
            for b in v.iter_mut().step_by(page) {
                *b = 1;
            }
            v
        })
        .collect()
}

/// IOR's warning, before the first repetition of a test that writes, when a file it will
/// write is there already: rank 0's for the shared file, each task's own with -F (a
/// rank other than 0 prints its own lines).
fn exists_warning(o: &Opts, at: Place, out: &mut Out) -> Result<()> {
    let writes = o.write || o.check_write;
    let files = if !writes || at.idle() || !(o.file_per_proc || at.root()) {
        Vec::new()
    } else if o.file_per_proc {
        o.task_files(at)
    } else {
        vec![o.dir.join(o.shared_name())]
    };
    let mut lines = String::new();
    for f in files.iter().filter(|f| f.exists()) {
        let f = o.shown(f);
        lines.push_str(&format!(
            "WARNING: The file \"{f}\" exists already and will be overwritten\n"
        ));
    }
    as_errors(o, at, &lines)?;
    rank_log(at, out, &lines);
    Ok(())
}

/// IOR's `-vvv` times of a phase on each task (`Test 0: Iter=0, Task=1,
/// Time=1795773333.367498, write open start`): the moments fathom measured the open,
/// the transfers and the close to begin and end, in seconds since the epoch.
fn timer_lines(o: &Opts, at: Place, d: &Done, write: bool, rep: u32, out: &mut Out) {
    if o.verbose < 3 || at.idle() {
        return;
    }
    let [start, open, rdwr, close, _] = d.times;
    let access = if write { "write" } else { "read" };
    let events = [
        (start, "open start"),
        (start + open, "open stop"),
        (start + open, "start"),
        (start + open + rdwr, "stop"),
        (start + open + rdwr, "close start"),
        (start + open + rdwr + close, "close stop"),
    ];
    let mut lines = String::new();
    for (t, what) in events {
        lines.push_str(&format!(
            "Test {}: Iter={rep}, Task={}, Time={t:.6}, {access} {what}\n",
            o.test_id,
            at.rank()
        ));
    }
    rank_log(at, out, &lines);
}

/// `--warningAsErrors`: a warning (a `WARNING: ` line of `text`, on any rank) ends the
/// run as IOR's error does, on every rank (asked of all together, so no rank waits for
/// one that stopped).
fn as_errors(o: &Opts, at: Place, text: &str) -> Result<()> {
    if !o.warnings_as_errors {
        return Ok(());
    }
    let first = text.lines().find_map(|l| l.strip_prefix("WARNING: "));
    if at.cl.any(first.is_some()) {
        match first {
            Some(w) => bail!("{} (--warningAsErrors)", w.trim_end_matches('.')),
            None => bail!("a warning on another rank ended the run (--warningAsErrors)"),
        }
    }
    Ok(())
}

/// A rank's own lines: rank 0's among the report's lines, another rank's printed at once
/// (as IOR's tasks print theirs).
fn rank_log(at: Place, out: &mut Out, lines: &str) {
    if at.root() {
        out.log(lines);
    } else {
        print!("{lines}");
    }
}

/// IOR's `-vvv` line of what each task does (`task 3 reading FILE`), printed by each rank
/// (rank 0's among the report's lines); `of`: the task whose file it is.
fn task_line(o: &Opts, at: Place, what: &str, of: Place, out: &mut Out) {
    if o.verbose < 3 || at.idle() {
        return;
    }
    let line = format!("task {} {what} {}\n", at.rank(), o.shown(&o.task_file(of)));
    rank_log(at, out, &line);
}

/// The pairs a stonewalling status file holds (IOR's number); 0 with IOR's warning when
/// it cannot be read.
fn read_status(f: &std::path::Path, notes: &mut String) -> f64 {
    let n = std::fs::read_to_string(f)
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<u64>().ok());
    match n {
        Some(n) => n as f64,
        None => {
            notes.push_str("WARNING: Could not read back the stonewalling status from the file!\n");
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_offsets_are_ior_s() {
        // IOR 4.0.0's own order, read from its system calls (lseek before each write)
        // with -z --random-offset-seed=7 -b 64k -t 4k, in transfers.
        let opts = |f: &[&str]| {
            let args: Vec<String> = f.iter().map(|s| s.to_string()).collect();
            let mut o = crate::ior::parse(&args).unwrap();
            o.z_seed = 7;
            o
        };
        let at = |tasks, data_of| Place {
            cl: &fathom::cluster::Alone,
            tasks,
            data_of,
        };
        let order = |o: &Opts, at: Place| -> Vec<u64> {
            random_offsets(o, at).iter().map(|b| b / 4096).collect()
        };
        // -F, one task: a shuffle of its block.
        let fpp = opts(&["-F", "-z", "-b", "64k", "-t", "4k"]);
        assert_eq!(
            order(&fpp, at(1, 0)),
            [8, 7, 11, 12, 13, 2, 4, 3, 1, 14, 15, 9, 6, 10, 0, 5]
        );
        // A shared file, 3 tasks (mpirun -np 3): each transfer of the three blocks goes to
        // one task, drawn alike by all, then each task's are shuffled.
        let shared = opts(&["-z", "-b", "64k", "-t", "4k"]);
        let want: [&[u64]; 3] = [
            &[30, 8, 37, 19, 32, 5, 15, 34, 36, 13, 46, 22, 1, 43, 27, 0],
            &[
                16, 41, 26, 28, 39, 3, 7, 12, 14, 24, 40, 38, 11, 47, 31, 9, 25,
            ],
            &[21, 2, 44, 6, 20, 29, 33, 17, 23, 45, 18, 42, 4, 35, 10],
        ];
        for (rank, w) in want.iter().enumerate() {
            assert_eq!(order(&shared, at(3, rank as u32)), *w, "task {rank}");
        }
        // Segments repeat the order a stride on (the tasks' blocks of a shared file).
        let two = opts(&["-z", "-b", "64k", "-t", "4k", "-s", "2"]);
        let all = two.order(at(3, 0));
        assert_eq!(all.len(), 32);
        assert_eq!(all.at(16) - all.at(0), 3 * 65536);
        // The order is made as it is needed: ten million segments cost one's list.
        let hard = opts(&["-b", "47008", "-t", "47008", "-s", "10000000"]);
        let order = hard.order(at(3, 2));
        assert_eq!(order.len(), 10_000_000);
        assert_eq!(order.at(9_999_999), (9_999_999 * 3 + 2) * 47008);
        assert_eq!(hard.transfer_count(at(3, 2), Some(20)), 20);
    }

    #[test]
    fn ior_drops_no_cache_and_lays_segments_out_as_strided_zones() {
        let o = crate::ior::parse(&[
            "-s".into(),
            "10000000".into(),
            "-b".into(),
            "4k".into(),
            "-t".into(),
            "4k".into(),
        ])
        .unwrap();
        let at = Place {
            cl: &fathom::cluster::Alone,
            tasks: 3,
            data_of: 1,
        };
        for step in [Step::Write, Step::Read, Step::Check] {
            let j = job(&o, step, at, None).unwrap();
            // IOR reads what the page cache holds.
            assert!(!j.invalidate);
            assert_eq!(j.offset_increment, fathom_job::SizeSpec::Bytes(4096));
        }
    }
}
