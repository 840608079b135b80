//! `filetree` jobs: a metadata operation mix (create, stat, rename, rmdir, …) over a
//! vdbench-style directory tree, with a format phase before the clock starts.
//!
//! The clone knows which of its files and directories exist (a few bytes per file: two
//! index sets with O(1) insert, remove and random pick), so every operation goes to a
//! target it can act on: a create to a free name in an existing directory, a stat to an
//! existing file, an rmdir to an empty directory. An operation with no possible target is
//! counted as skipped, never silently turned into another.

use crate::plan::{PlannedClone, PlannedJob, TreePlan};
use crate::record::outcome::CloneOutcome;
use fathom_engine::{fsop, StatType};
use fathom_job::{MetaOp, TreeFormat};
use fathom_stats::{CpuUsage, ThreadStats};
use fathom_workload::{OpMix, Rng};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Members of one side of a two-way partition of `0..n`, with O(1) moves and picks.
struct Sides {
    /// side[i]: true = in the "yes" set.
    side: Vec<bool>,
    /// Position of i in its side's member list.
    pos: Vec<u32>,
    members: [Vec<u32>; 2],
}

impl Sides {
    fn new(n: u64) -> Sides {
        Sides {
            side: vec![false; n as usize],
            pos: (0..n as u32).collect(),
            members: [(0..n as u32).collect(), Vec::new()],
        }
    }
    fn has(&self, i: u64) -> bool {
        self.side[i as usize]
    }
    fn set(&mut self, i: u64, yes: bool) {
        let i = i as usize;
        if self.side[i] == yes {
            return;
        }
        let from = self.side[i] as usize;
        let p = self.pos[i] as usize;
        let last = self.members[from].pop().expect("member of its side");
        if last as usize != i {
            self.members[from][p] = last;
            self.pos[last as usize] = p as u32;
        }
        let to = yes as usize;
        self.pos[i] = self.members[to].len() as u32;
        self.members[to].push(i as u32);
        self.side[i] = yes;
    }
    fn count(&self, yes: bool) -> usize {
        self.members[yes as usize].len()
    }
    fn random(&self, yes: bool, rng: &mut Rng) -> Option<u64> {
        let m = &self.members[yes as usize];
        (!m.is_empty()).then(|| m[rng.below(m.len() as u64) as usize] as u64)
    }
}

/// What the clone knows of its tree.
struct State<'a> {
    t: &'a TreePlan,
    files: Sides,
    dir_exists: Vec<bool>,
    /// Existing entries (files and subdirectories) of each directory.
    children: Vec<u32>,
    /// Directories this clone made (removed again with unlink=1).
    made_dirs: Vec<bool>,
    /// Files that were there before the run (unlink=1 leaves them: they are the user's).
    foreign: Vec<bool>,
    open: Vec<(u64, std::os::fd::OwnedFd)>,
    open_max: usize,
    cursors: [u64; 11],
}

impl State<'_> {
    fn dir_ok(&self, d: Option<u64>) -> bool {
        d.is_none_or(|k| self.dir_exists[k as usize])
    }
    fn file_made(&mut self, i: u64) {
        self.files.set(i, true);
        self.foreign[i as usize] = false;
        if let Some(d) = self.t.tree.file_dir(i) {
            self.children[d as usize] += 1;
        }
    }
    fn file_gone(&mut self, i: u64) {
        self.files.set(i, false);
        if let Some(d) = self.t.tree.file_dir(i) {
            self.children[d as usize] -= 1;
        }
    }
    fn dir_made(&mut self, k: u64) {
        self.dir_exists[k as usize] = true;
        if let Some(p) = self.t.tree.parent(k) {
            self.children[p as usize] += 1;
        }
    }
    fn dir_gone(&mut self, k: u64) {
        self.dir_exists[k as usize] = false;
        if let Some(p) = self.t.tree.parent(k) {
            self.children[p as usize] -= 1;
        }
    }

    /// A file for `op`: existing (`exists`) or free in an existing directory.
    fn pick_file(&mut self, op: MetaOp, exists: bool, seq: bool, rng: &mut Rng) -> Option<u64> {
        let n = self.t.tree.files();
        if n == 0 || self.files.count(exists) == 0 {
            return None;
        }
        if !seq {
            for _ in 0..32 {
                let i = self.files.random(exists, rng)?;
                if exists || self.dir_ok(self.t.tree.file_dir(i)) {
                    return Some(i);
                }
            }
            // Free names mostly in missing directories: look in order from a random start.
            let start = rng.below(n);
            return (0..n)
                .map(|k| (start + k) % n)
                .find(|&i| !self.files.has(i) && self.dir_ok(self.t.tree.file_dir(i)));
        }
        let c = self.cursors[op as usize];
        for k in 0..n {
            let i = (c + k) % n;
            if self.files.has(i) == exists && (exists || self.dir_ok(self.t.tree.file_dir(i))) {
                self.cursors[op as usize] = (i + 1) % n;
                return Some(i);
            }
        }
        None
    }

    /// A directory for mkdir (missing, parent present) or rmdir (present and empty).
    fn pick_dir(&mut self, op: MetaOp, seq: bool, rng: &mut Rng) -> Option<u64> {
        let n = self.t.tree.dirs();
        if n == 0 {
            return None;
        }
        let start = if seq {
            self.cursors[op as usize]
        } else {
            rng.below(n)
        };
        let ok = |s: &State, k: u64| match op {
            MetaOp::Mkdir => !s.dir_exists[k as usize] && s.dir_ok(s.t.tree.parent(k)),
            _ => s.dir_exists[k as usize] && s.children[k as usize] == 0,
        };
        let k = (0..n).map(|j| (start + j) % n).find(|&k| ok(self, k))?;
        if seq {
            self.cursors[op as usize] = (k + 1) % n;
        }
        Some(k)
    }
}

/// Run one `filetree` clone. `out` already holds the clone's start (placement and start
/// delay are done).
pub(crate) fn run(
    job: &PlannedJob,
    clone: &PlannedClone,
    t: &TreePlan,
    cancel: &AtomicBool,
    live: Option<&crate::record::live::LiveClone>,
    mut out: CloneOutcome,
    t_start: Instant,
) -> CloneOutcome {
    let spec = &job.spec;
    let tree = &t.tree;
    let nfiles = tree.files();
    let ndirs = tree.dirs();
    let mut st = State {
        t,
        files: Sides::new(nfiles),
        dir_exists: vec![false; ndirs as usize],
        children: vec![0; ndirs as usize],
        made_dirs: vec![false; ndirs as usize],
        foreign: vec![false; nfiles as usize],
        open: Vec::new(),
        open_max: spec.openfiles.map_or(1024, |o| o.max(1) as usize),
        cursors: [0; 11],
    };
    let mix_spec: Vec<(MetaOp, u32)> = if spec.meta_mix.is_empty() {
        vec![(MetaOp::Create, 100)]
    } else {
        spec.meta_mix.clone()
    };
    let stat_type = spec.engine.stat_type;
    let (size_lo, size_hi) = spec.filesize.unwrap_or((0, 0));
    let bs = spec.bs.0[1].max(spec.bs.0[0]).max(512) as usize;
    let mut buf = vec![0u8; bs];
    let mut fill_seed = clone.params.seed;
    fathom_engine::fill_random(&mut buf, &mut fill_seed);
    let mut rng = Rng::new(clone.params.seed ^ 0x7ee);

    // Format, before the clock.
    let t_fmt = Instant::now();
    let root_made = !t.root.exists();
    if let Err(e) = format(
        &mut st,
        spec.tree.format.unwrap_or_default(),
        &buf,
        (size_lo, size_hi),
        &mut rng,
    ) {
        let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
        out.stats.error = errno;
        out.error_text = Some(format!("format: {e}"));
        out.elapsed = t_start.elapsed();
        return out;
    }
    out.setup = t_fmt.elapsed();

    let mut mix = OpMix::new(&mix_spec);
    let seq = spec.fileselect_sequential;
    // As fio: the work is one operation per file (× loops) unless number_ios says
    // otherwise; runtime caps it, time_based repeats it until the runtime is over.
    let total: u64 = if spec.number_ios > 0 {
        spec.number_ios
    } else if spec.time_based {
        u64::MAX
    } else {
        nfiles.max(1) * spec.loops.max(1) as u64
    };
    // A skip changes nothing, so a whole deck of skips (every operation of the mix tried
    // on an unchanged tree) means no operation can ever be done: the job ends.
    let mut skips_in_a_row = 0u32;
    let tolerate = spec.continue_on_error.iter().any(|&b| b);
    let mut schedule = {
        let r = spec.rate_iops.0.iter().copied().max().unwrap_or(0);
        (r > 0).then(|| {
            fathom_workload::Schedule::new(
                fathom_workload::RateSpec {
                    bytes_per_sec: [0; 3],
                    iops: [r, 0, 0],
                    process: job.rate.process,
                },
                clone.params.seed,
            )
        })
    };
    let mut thinker = crate::pace::Thinker::new(job.thinktime);
    let fresh = |mix: &[(MetaOp, u32)]| {
        let mut s = ThreadStats::new();
        s.count_errors = tolerate;
        for (op, _) in mix {
            s.op_mut(op.name());
        }
        s
    };
    out.stats = fresh(&mix_spec);
    let mut flow = job
        .flow
        .as_deref()
        .map(|f| crate::pace::flow::FlowMember::join(f, spec.flow));
    let io_start = crate::clock::now();
    let ramp_end = io_start + spec.ramp_time;
    let mut ramping = !spec.ramp_time.is_zero();
    let mut measure_start = io_start;
    let mut deadline = spec.runtime.map(|r| ramp_end + r);
    let mut cpu_start = CpuUsage::current_thread();
    let mut sched_origin = io_start;
    let mut live_next = io_start;
    let mut done = 0u64;
    while done < total {
        let now = crate::clock::now();
        if cancel.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
            break;
        }
        if ramping && now >= ramp_end {
            ramping = false;
            out.stats = fresh(&mix_spec);
            measure_start = now;
            cpu_start = CpuUsage::current_thread();
            deadline = spec.runtime.map(|r| now + r);
            if let Some(s) = &mut schedule {
                s.reset();
                sched_origin = now;
            }
        }
        if let Some(at) = schedule
            .as_mut()
            .and_then(|s| s.intended(0, 0))
            .map(|d| sched_origin + d)
        {
            if at > now && !crate::pace::wait_until(at, cancel, deadline) {
                break;
            }
        }
        if let Some(l) = live {
            if now >= live_next {
                let ops: u64 = out.stats.ops.iter().map(|o| o.ops).sum();
                let ms = now.duration_since(measure_start).as_millis() as u64;
                l.publish([ops, 0, 0], [0; 3], ms.max(1));
                live_next = now + Duration::from_millis(50);
            }
        }
        if let Some(f) = &mut flow {
            if f.ahead() {
                if !spec.flow_sleep.is_zero() {
                    std::thread::sleep(spec.flow_sleep);
                } else {
                    std::thread::yield_now();
                }
                continue;
            }
            f.issued();
        }
        done += 1;
        let op = mix.pick(&mut rng);
        let size = if size_hi > size_lo {
            size_lo + rng.below(size_hi - size_lo + 1)
        } else {
            size_lo
        };
        let r = do_op(&mut st, op, seq, &mut rng, stat_type, &mut buf, size, bs);
        let name = op.name();
        if r.is_some() {
            skips_in_a_row = 0;
        }
        match r {
            None => {
                out.stats.op_mut(name).skipped += 1;
                skips_in_a_row += 1;
                if skips_in_a_row >= 100 {
                    break;
                }
            }
            Some((ns, bytes, Ok(()))) => out.stats.record_op(name, None, ns, bytes, true),
            Some((ns, bytes, Err(e))) => {
                out.stats.record_op(name, None, ns, bytes, false);
                let errno = fathom_engine::errno_of(&e).unwrap_or(libc::EIO);
                if tolerate || spec.ignore_error.iter().any(|l| l.contains(&errno)) {
                    out.stats.total_err += 1;
                    if out.stats.first_error == 0 {
                        out.stats.first_error = errno;
                        out.first_error_text = Some(e.to_string());
                    }
                } else {
                    out.stats.error = errno;
                    out.error_text = Some(e.to_string());
                    break;
                }
            }
        }
        if thinker.count() && !thinker.stall(cancel, deadline) {
            break;
        }
    }
    if ramping {
        out.stats = fresh(&mix_spec);
        measure_start = crate::clock::now();
    }
    let end = crate::clock::now();
    out.stats.runtime = end.duration_since(measure_start);
    out.stats.cpu = CpuUsage::current_thread().since(&cpu_start);
    for (_, fd) in st.open.drain(..) {
        let _ = fsop::close(fd);
    }
    if let Some(l) = live {
        let ops: u64 = out.stats.ops.iter().map(|o| o.ops).sum();
        l.publish(
            [ops, 0, 0],
            [0; 3],
            out.stats.runtime.as_millis().max(1) as u64,
        );
    }
    if spec.unlink {
        remove_tree(&mut st, root_made);
    }
    out.elapsed = t_start.elapsed();
    out
}

/// Make (and find) what the tree holds before the clock starts.
fn format(
    st: &mut State<'_>,
    how: TreeFormat,
    buf: &[u8],
    (lo, hi): (u64, u64),
    rng: &mut Rng,
) -> io::Result<()> {
    let t = st.t;
    if how == TreeFormat::No {
        if !t.root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{}: the tree's root does not exist and tree_format=no makes nothing; \
                     use tree_format=dirs",
                    t.root.display()
                ),
            ));
        }
    } else {
        std::fs::create_dir_all(&t.root).map_err(|e| fsop::named(e, "mkdir", &t.root))?;
    }
    for k in 0..t.tree.dirs() {
        let p = t.dir_path(Some(k));
        if p.is_dir() {
            st.dir_made(k);
        } else if how != TreeFormat::No {
            match std::fs::create_dir(&p) {
                Ok(()) => st.made_dirs[k as usize] = true,
                // Another clone of a shared tree made it first.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(fsop::named(e, "mkdir", &p)),
            }
            st.dir_made(k);
        }
    }
    // Find the clone's existing files: one directory listing per directory.
    let holders: Vec<Option<u64>> = if t.tree.depth() == 0 {
        vec![None]
    } else {
        (0..t.tree.file_dirs())
            .map(|slot| t.tree.file_dir(slot * t.tree.files_per_dir()))
            .collect()
    };
    let per = t.tree.files_per_dir();
    for (slot, d) in holders.iter().enumerate() {
        if !st.dir_ok(*d) {
            continue;
        }
        let dir = t.dir_path(*d);
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(fsop::named(e, "readdir", &dir)),
        };
        for e in rd.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(num) = name
                .strip_prefix(t.name_prefix.as_str())
                .and_then(|r| r.strip_suffix(t.name_suffix.as_str()))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            if num < per && (num == 0 || !name[t.name_prefix.len()..].starts_with('0')) {
                let i = slot as u64 * per + num;
                st.file_made(i);
                st.foreign[i as usize] = true;
            }
        }
    }
    match how {
        TreeFormat::No | TreeFormat::Dirs => {}
        TreeFormat::Restart | TreeFormat::Yes => {
            for i in 0..t.tree.files() {
                if how == TreeFormat::Yes && st.files.has(i) {
                    let p = t.file_path(i);
                    std::fs::remove_file(&p).map_err(|e| fsop::named(e, "unlink", &p))?;
                    st.file_gone(i);
                }
                if !st.files.has(i) {
                    let p = fsop::cpath(&t.file_path(i))?;
                    let size = if hi > lo {
                        lo + rng.below(hi - lo + 1)
                    } else {
                        lo
                    };
                    let fd = fsop::create_c(&p, libc::O_WRONLY | libc::O_EXCL)
                        .map_err(|e| fsop::named(e, "create", &t.file_path(i)))?;
                    let r = fsop::write_fd(&fd, buf, size);
                    fsop::close(fd)?;
                    r.map_err(|e| fsop::named(e, "write", &t.file_path(i)))?;
                    st.file_made(i);
                }
            }
        }
    }
    Ok(())
}

/// Do one operation; None when nothing qualifies as its target. Returns the time the
/// operation took, the data bytes it moved and how it ended.
#[allow(clippy::too_many_arguments)]
fn do_op(
    st: &mut State<'_>,
    op: MetaOp,
    seq: bool,
    rng: &mut Rng,
    stat_type: StatType,
    buf: &mut [u8],
    size: u64,
    bs: usize,
) -> Option<(u64, u64, io::Result<()>)> {
    let t = st.t;
    let path_of = |i: u64| t.file_path(i);
    let c = |p: &Path| fsop::cpath(p).expect("tree paths have no NUL");
    let timed = |f: &mut dyn FnMut() -> io::Result<u64>| {
        let t0 = crate::clock::now();
        let r = f();
        let ns = crate::clock::now().duration_since(t0).as_nanos() as u64;
        match r {
            Ok(b) => (ns, b, Ok(())),
            Err(e) => (ns, 0, Err(e)),
        }
    };
    let name = op.name();
    let named = |r: (u64, u64, io::Result<()>), p: &Path| {
        (r.0, r.1, r.2.map_err(|e| fsop::named(e, name, p)))
    };
    Some(match op {
        MetaOp::Create => {
            let i = st.pick_file(op, false, seq, rng)?;
            let p = path_of(i);
            let cp = c(&p);
            let r = timed(&mut || {
                let fd = fsop::create_c(&cp, libc::O_WRONLY | libc::O_EXCL)?;
                let w = fsop::write_fd(&fd, buf, size);
                fsop::close(fd)?;
                w
            });
            if r.2.is_ok() {
                st.file_made(i);
            }
            named(r, &p)
        }
        MetaOp::Open => {
            if st.open.len() >= st.open_max {
                return None;
            }
            let i = st.pick_file(op, true, seq, rng)?;
            let p = path_of(i);
            let cp = c(&p);
            let mut fd = None;
            let r = timed(&mut || {
                fd = Some(fsop::open_c(&cp, libc::O_RDONLY)?);
                Ok(0)
            });
            if let (Ok(_), Some(fd)) = (&r.2, fd) {
                st.open.push((i, fd));
            }
            named(r, &p)
        }
        MetaOp::Close => {
            if st.open.is_empty() {
                return None;
            }
            let k = if seq {
                0
            } else {
                rng.below(st.open.len() as u64) as usize
            };
            let (i, fd) = st.open.swap_remove(k);
            let mut fd = Some(fd);
            let r = timed(&mut || match fd.take() {
                Some(fd) => fsop::close(fd).map(|_| 0),
                None => Ok(0),
            });
            named(r, &path_of(i))
        }
        MetaOp::Stat | MetaOp::Setattr | MetaOp::Delete => {
            let i = st.pick_file(op, true, seq, rng)?;
            let p = path_of(i);
            let cp = c(&p);
            let r = timed(&mut || {
                match op {
                    MetaOp::Stat => fsop::stat_c(&cp, stat_type),
                    MetaOp::Setattr => fsop::touch_c(&cp),
                    _ => fsop::unlink_c(&cp),
                }
                .map(|_| 0)
            });
            if op == MetaOp::Delete && r.2.is_ok() {
                st.file_gone(i);
            }
            named(r, &p)
        }
        MetaOp::Read | MetaOp::Write => {
            let i = st.pick_file(op, true, seq, rng)?;
            let p = path_of(i);
            let cp = c(&p);
            let len = if size > 0 { size } else { bs as u64 };
            let r = timed(&mut || {
                let flags = if op == MetaOp::Read {
                    libc::O_RDONLY
                } else {
                    libc::O_WRONLY
                };
                let fd = fsop::open_c(&cp, flags)?;
                let n = if op == MetaOp::Read {
                    fsop::read_fd(&fd, buf, u64::MAX)
                } else {
                    fsop::write_fd(&fd, buf, len)
                };
                fsop::close(fd)?;
                n
            });
            named(r, &p)
        }
        MetaOp::Rename => {
            let from = st.pick_file(op, true, seq, rng)?;
            // The new name: a free one in an existing directory (picked as creates pick).
            let to = st.pick_file(MetaOp::Create, false, seq, rng)?;
            let (pf, pt) = (path_of(from), path_of(to));
            let (cf, ct) = (c(&pf), c(&pt));
            let r = timed(&mut || fsop::rename_c(&cf, &ct).map(|_| 0));
            if r.2.is_ok() {
                st.file_gone(from);
                st.file_made(to);
                for o in st.open.iter_mut().filter(|o| o.0 == from) {
                    o.0 = to;
                }
            }
            named(r, &pf)
        }
        MetaOp::Mkdir | MetaOp::Rmdir => {
            let k = st.pick_dir(op, seq, rng)?;
            let p = t.dir_path(Some(k));
            let cp = c(&p);
            let r = timed(&mut || {
                if op == MetaOp::Mkdir {
                    fsop::mkdir_c(&cp)
                } else {
                    fsop::rmdir_c(&cp)
                }
                .map(|_| 0)
            });
            if r.2.is_ok() {
                if op == MetaOp::Mkdir {
                    st.dir_made(k);
                    st.made_dirs[k as usize] = true;
                } else {
                    st.dir_gone(k);
                }
            }
            named(r, &p)
        }
    })
}

/// unlink=1: remove the files the clone made, then the directories it made, deepest first (a
/// directory another clone still uses, or one that held files of someone else, stays).
fn remove_tree(st: &mut State<'_>, root_made: bool) {
    let t = st.t;
    for i in 0..t.tree.files() {
        if st.files.has(i) && !st.foreign[i as usize] {
            let _ = std::fs::remove_file(t.file_path(i));
        }
    }
    for k in (0..t.tree.dirs()).rev() {
        if st.made_dirs[k as usize] {
            let _ = std::fs::remove_dir(t.dir_path(Some(k)));
        }
    }
    if root_made {
        let _ = std::fs::remove_dir(&t.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_move_and_pick_in_constant_time() {
        let mut s = Sides::new(10);
        assert_eq!((s.count(false), s.count(true)), (10, 0));
        s.set(3, true);
        s.set(7, true);
        s.set(3, true);
        assert_eq!((s.count(false), s.count(true)), (8, 2));
        assert!(s.has(7) && !s.has(4));
        s.set(3, false);
        let mut rng = Rng::new(1);
        for _ in 0..20 {
            assert_eq!(s.random(true, &mut rng), Some(7));
            assert_ne!(s.random(false, &mut rng), Some(7));
        }
        for i in 0..10 {
            s.set(i, true);
        }
        assert_eq!(s.random(false, &mut rng), None);
        let mut all: Vec<u32> = s.members[1].clone();
        all.sort();
        assert_eq!(all, (0..10).collect::<Vec<u32>>());
    }
}
