//! `filetree` jobs: a metadata operation mix (create, stat, rename, rmdir, …) over a
//! vdbench-style directory tree, with a format phase before the clock starts.
//!
//! The clone knows which of its files and directories exist (a few bytes per file: index
//! sets with O(1) moves and random picks), so every operation goes to a target it can act
//! on: a create to a free name in an existing directory, a stat to an existing file, an
//! rmdir to an empty directory. An operation with no possible target is counted as
//! skipped, never silently turned into another. A target is the clone's alone while its
//! operation runs (marked busy), so with `tree_shared` the clones of every job on one tree
//! share one view of it, as vdbench's threads do.

mod walk;

pub(crate) use walk::run;

use crate::plan::TreePlan;
use crate::record::live::LiveClone;
use fathom_engine::{fsop, StatType};
use fathom_job::{MetaOp, TreeFormat};
use fathom_stats::{Sample, ThreadStats};
use fathom_workload::{Rng, Tree};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

/// Members of the three sides of a partition of `0..n` (absent, present, busy), with O(1)
/// moves and picks.
struct Sides {
    /// side[i]: ABSENT, PRESENT or BUSY.
    side: Vec<u8>,
    /// Position of i in its side's member list.
    pos: Vec<u32>,
    members: [Vec<u32>; 3],
}

const ABSENT: u8 = 0;
const PRESENT: u8 = 1;
const BUSY: u8 = 2;

impl Sides {
    fn new(n: u64) -> Sides {
        Sides {
            side: vec![ABSENT; n as usize],
            pos: (0..n as u32).collect(),
            members: [(0..n as u32).collect(), Vec::new(), Vec::new()],
        }
    }
    fn of(&self, i: u64) -> u8 {
        self.side[i as usize]
    }
    fn set(&mut self, i: u64, to: u8) {
        let i = i as usize;
        let from = self.side[i];
        if from == to {
            return;
        }
        let p = self.pos[i] as usize;
        let last = self.members[from as usize]
            .pop()
            .expect("member of its side");
        if last as usize != i {
            self.members[from as usize][p] = last;
            self.pos[last as usize] = p as u32;
        }
        self.pos[i] = self.members[to as usize].len() as u32;
        self.members[to as usize].push(i as u32);
        self.side[i] = to;
    }
    fn count(&self, side: u8) -> usize {
        self.members[side as usize].len()
    }
    fn random(&self, side: u8, rng: &mut Rng) -> Option<u64> {
        let m = &self.members[side as usize];
        (!m.is_empty()).then(|| m[rng.below(m.len() as u64) as usize] as u64)
    }
}

/// What is known of a tree: which files and directories exist and which are in use.
struct TreeState {
    files: Sides,
    dir_exists: Vec<bool>,
    /// A directory an mkdir or rmdir is working on.
    dir_busy: Vec<bool>,
    /// Entries (files and subdirectories) of each directory, those being made included.
    children: Vec<u32>,
    /// Directories made here (removed again with unlink=1).
    made_dirs: Vec<bool>,
    /// Files that were there before the run (unlink=1 leaves them: they are the user's).
    foreign: Vec<bool>,
    cursors: [u64; MetaOp::ALL.len()],
    /// Changes made so far (a clone that finds nothing to do waits while this moves).
    version: u64,
    /// Clones working on the tree, and how many of them find nothing to do.
    running: u32,
    stalled: u32,
}

/// What an operation works on, reserved (busy) while it runs.
#[derive(Clone, Copy)]
enum Target {
    File(u64),
    /// From, to (rename, copy).
    Two(u64, u64),
    Dir(u64),
    /// One of the clone's open files (by position in its list).
    Opened(usize),
}

impl TreeState {
    fn new(t: &Tree) -> TreeState {
        let (nfiles, ndirs) = (t.files(), t.dirs() as usize);
        TreeState {
            files: Sides::new(nfiles),
            dir_exists: vec![false; ndirs],
            dir_busy: vec![false; ndirs],
            children: vec![0; ndirs],
            made_dirs: vec![false; ndirs],
            foreign: vec![false; nfiles as usize],
            cursors: [0; MetaOp::ALL.len()],
            version: 0,
            running: 0,
            stalled: 0,
        }
    }
    /// `d` can take new entries: the root, or an existing directory no rmdir works on.
    fn dir_ok(&self, d: Option<u64>) -> bool {
        d.is_none_or(|k| self.dir_exists[k as usize] && !self.dir_busy[k as usize])
    }
    fn add_child(&mut self, d: Option<u64>) {
        if let Some(d) = d {
            self.children[d as usize] += 1;
        }
    }
    fn drop_child(&mut self, d: Option<u64>) {
        if let Some(d) = d {
            self.children[d as usize] -= 1;
        }
    }
    fn file_found(&mut self, t: &Tree, i: u64) {
        self.files.set(i, PRESENT);
        self.add_child(t.file_dir(i));
    }
    fn dir_found(&mut self, t: &Tree, k: u64) {
        self.dir_exists[k as usize] = true;
        self.add_child(t.parent(k));
    }

    /// A file for `op`: an existing one (`exists`), or a free name in a directory that
    /// can take it.
    fn pick_file(
        &mut self,
        t: &Tree,
        op: MetaOp,
        exists: bool,
        seq: bool,
        rng: &mut Rng,
    ) -> Option<u64> {
        let n = t.files();
        let side = if exists { PRESENT } else { ABSENT };
        if n == 0 || self.files.count(side) == 0 {
            return None;
        }
        if !seq {
            for _ in 0..32 {
                let i = self.files.random(side, rng)?;
                if exists || self.dir_ok(t.file_dir(i)) {
                    return Some(i);
                }
            }
            // Free names mostly in missing directories: look in order from a random start.
            let start = rng.below(n);
            return (0..n)
                .map(|k| (start + k) % n)
                .find(|&i| self.files.of(i) == ABSENT && self.dir_ok(t.file_dir(i)));
        }
        let c = self.cursors[op as usize];
        for k in 0..n {
            let i = (c + k) % n;
            if self.files.of(i) == side && (exists || self.dir_ok(t.file_dir(i))) {
                self.cursors[op as usize] = (i + 1) % n;
                return Some(i);
            }
        }
        None
    }

    /// A directory for mkdir (missing, its parent able to take it) or rmdir (present,
    /// empty, not in use).
    fn pick_dir(&mut self, t: &Tree, op: MetaOp, seq: bool, rng: &mut Rng) -> Option<u64> {
        let n = t.dirs();
        if n == 0 {
            return None;
        }
        let start = if seq {
            self.cursors[op as usize]
        } else {
            rng.below(n)
        };
        let ok = |s: &TreeState, k: u64| {
            let k_ = k as usize;
            !s.dir_busy[k_]
                && match op {
                    MetaOp::Mkdir => !s.dir_exists[k_] && s.dir_ok(t.parent(k)),
                    _ => s.dir_exists[k_] && s.children[k_] == 0,
                }
        };
        let k = (0..n).map(|j| (start + j) % n).find(|&k| ok(self, k))?;
        if seq {
            self.cursors[op as usize] = (k + 1) % n;
        }
        Some(k)
    }

    /// Choose and reserve what `op` works on; None when nothing qualifies.
    fn reserve(
        &mut self,
        t: &Tree,
        op: MetaOp,
        seq: bool,
        rng: &mut Rng,
        open: &[(u64, std::os::fd::OwnedFd)],
        open_max: usize,
    ) -> Option<Target> {
        match op {
            MetaOp::Close => {
                if open.is_empty() {
                    return None;
                }
                let k = if seq {
                    0
                } else {
                    rng.below(open.len() as u64) as usize
                };
                Some(Target::Opened(k))
            }
            MetaOp::Open if open.len() >= open_max => None,
            MetaOp::Create => {
                let i = self.pick_file(t, op, false, seq, rng)?;
                self.files.set(i, BUSY);
                self.add_child(t.file_dir(i));
                Some(Target::File(i))
            }
            MetaOp::Rename | MetaOp::Copy => {
                let from = self.pick_file(t, op, true, seq, rng)?;
                self.files.set(from, BUSY);
                // The new name: a free one in a directory that can take it.
                let Some(to) = self.pick_file(t, MetaOp::Create, false, seq, rng) else {
                    self.files.set(from, PRESENT);
                    return None;
                };
                self.files.set(to, BUSY);
                self.add_child(t.file_dir(to));
                Some(Target::Two(from, to))
            }
            MetaOp::Mkdir | MetaOp::Rmdir => {
                let k = self.pick_dir(t, op, seq, rng)?;
                self.dir_busy[k as usize] = true;
                if op == MetaOp::Mkdir {
                    self.add_child(t.parent(k));
                }
                Some(Target::Dir(k))
            }
            _ => {
                let i = self.pick_file(t, op, true, seq, rng)?;
                self.files.set(i, BUSY);
                Some(Target::File(i))
            }
        }
    }

    /// Record how `op` on `target` ended and release it.
    fn release(&mut self, t: &Tree, op: MetaOp, target: Target, ok: bool) {
        match (op, target) {
            (_, Target::Opened(_)) => {}
            (MetaOp::Create, Target::File(i)) => {
                self.files.set(i, if ok { PRESENT } else { ABSENT });
                if ok {
                    self.foreign[i as usize] = false;
                } else {
                    self.drop_child(t.file_dir(i));
                }
            }
            (MetaOp::Delete, Target::File(i)) => {
                self.files.set(i, if ok { ABSENT } else { PRESENT });
                if ok {
                    self.drop_child(t.file_dir(i));
                }
            }
            (_, Target::File(i)) => self.files.set(i, PRESENT),
            (_, Target::Two(from, to)) => {
                let moved = ok && op == MetaOp::Rename;
                self.files.set(from, if moved { ABSENT } else { PRESENT });
                if moved {
                    self.drop_child(t.file_dir(from));
                }
                self.files.set(to, if ok { PRESENT } else { ABSENT });
                if ok {
                    self.foreign[to as usize] = false;
                } else {
                    self.drop_child(t.file_dir(to));
                }
            }
            (_, Target::Dir(k)) => {
                let k_ = k as usize;
                self.dir_busy[k_] = false;
                match (op == MetaOp::Mkdir, ok) {
                    (true, true) => {
                        self.dir_exists[k_] = true;
                        self.made_dirs[k_] = true;
                    }
                    (true, false) => self.drop_child(t.parent(k)),
                    (false, true) => {
                        self.dir_exists[k_] = false;
                        self.drop_child(t.parent(k));
                    }
                    (false, false) => {}
                }
            }
        }
        if ok {
            self.version += 1;
        }
    }
}

/// The state of a shared tree, one per root for every `tree_shared` clone working on it
/// at the time (the first to come finds what the tree holds; the last to go drops it).
type Shared = Arc<Mutex<TreeState>>;

static SHARED: Mutex<Vec<(PathBuf, Weak<Mutex<TreeState>>)>> = Mutex::new(Vec::new());

fn lock(s: &Mutex<TreeState>) -> MutexGuard<'_, TreeState> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// The clone's view of its tree: its own, or the one shared by every clone on the tree
/// (made, and the tree formatted, by the first).
fn state_for(
    t: &TreePlan,
    shared: bool,
    fmt: &mut dyn FnMut(&mut TreeState) -> io::Result<()>,
) -> io::Result<Shared> {
    if !shared {
        let mut st = TreeState::new(&t.tree);
        fmt(&mut st)?;
        st.running = 1;
        return Ok(Arc::new(Mutex::new(st)));
    }
    let mut reg = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    reg.retain(|(_, w)| w.strong_count() > 0);
    if let Some(s) = reg
        .iter()
        .find(|(r, _)| *r == t.root)
        .and_then(|(_, w)| w.upgrade())
    {
        let mut g = lock(&s);
        if g.files.side.len() as u64 != t.tree.files() || g.dir_exists.len() as u64 != t.tree.dirs()
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: tree_shared jobs on one tree must give it the same shape (tree_depth, tree_width, nrfiles, tree_distribution)",
                    t.root.display()
                ),
            ));
        }
        g.running += 1;
        drop(g);
        return Ok(s);
    }
    let mut st = TreeState::new(&t.tree);
    fmt(&mut st)?;
    st.running = 1;
    let s = Arc::new(Mutex::new(st));
    reg.push((t.root.clone(), Arc::downgrade(&s)));
    Ok(s)
}

/// One operation's totals at the previous sample: ops, bytes, latency sum and sum of
/// squares, and the latencies.
type OpMark = (u64, u64, u128, u128, Option<hdrhistogram::Histogram<u64>>);

/// Interval samples of each operation of the mix (rate and times per interval); also
/// the operations an I/O job records beside its I/O (fileio=(sequential,delete)).
pub(crate) struct OpSampler {
    every: Duration,
    next: Instant,
    start: Instant,
    last_at: Instant,
    /// Per operation of the mix: ops, bytes, sums and latencies at the previous sample,
    /// and the longest operation since.
    last: Vec<OpMark>,
    iv_max: Vec<u64>,
    /// `live_samples`: hand each sample to the live board too (operation k of the mix in
    /// slot k, for the first three).
    share: bool,
    /// An I/O job's operations: hand each sample to the live board by name.
    pub(crate) share_ops: bool,
}

impl OpSampler {
    pub(crate) fn new(start: Instant, every: Duration, n: usize, share: bool) -> OpSampler {
        OpSampler {
            every,
            next: start + every,
            start,
            last_at: start,
            last: vec![(0, 0, 0, 0, None); n],
            iv_max: vec![0; n],
            share,
            share_ops: false,
        }
    }
    /// Operations done since the last sample (an unsampled last piece holds some).
    pub(crate) fn pending(&self, st: &ThreadStats) -> bool {
        st.ops.iter().zip(&self.last).any(|(o, l)| o.ops != l.0)
    }
    pub(crate) fn saw(&mut self, k: usize, ns: u64) {
        if let Some(m) = self.iv_max.get_mut(k) {
            *m = (*m).max(ns);
        }
    }
    fn tick(&mut self, now: Instant, st: &mut ThreadStats, live: Option<&LiveClone>) {
        if now >= self.next {
            self.sample(now, st, live);
        }
    }
    pub(crate) fn sample(&mut self, now: Instant, st: &mut ThreadStats, live: Option<&LiveClone>) {
        // Samples count whole milliseconds: a last piece under one counts one.
        let len_ms = (now.duration_since(self.last_at).as_millis() as u64).max(1);
        let t_ms = now.duration_since(self.start).as_millis() as u64;
        let mut shared: Vec<(usize, Sample)> = Vec::new();
        let mut named: Vec<(&str, Sample)> = Vec::new();
        for (k, o) in st.ops.iter_mut().enumerate() {
            let Some(last) = self.last.get_mut(k) else {
                break;
            };
            let h = o.lat.histogram().clone();
            let mut delta = h.clone();
            if let Some(prev) = &last.4 {
                let _ = delta.subtract(prev);
            }
            let pct = |q: f64| {
                if delta.is_empty() {
                    0
                } else {
                    delta.value_at_quantile(q)
                }
            };
            let (sum, sumsq) = (o.lat.sum(), o.lat.sumsq());
            let s = Sample {
                t_ms,
                len_ms,
                bytes: o.bytes - last.1,
                ios: o.ops - last.0,
                clat_p50: pct(0.5),
                clat_p99: pct(0.99),
                clat_p999: pct(0.999),
                clat_max: self.iv_max[k],
                clat_sum: sum.saturating_sub(last.2).min(u64::MAX as u128) as u64,
                clat_sumsq: sumsq.saturating_sub(last.3) as f64,
            };
            o.samples.push(s);
            if self.share && k < 3 {
                shared.push((k, s));
            }
            if self.share_ops {
                named.push((o.name.as_str(), s));
            }
            *last = (o.ops, o.bytes, sum, sumsq, Some(h));
            self.iv_max[k] = 0;
        }
        if let Some(l) = live.filter(|_| !shared.is_empty()) {
            l.push_samples(&shared);
        }
        if let Some(l) = live.filter(|_| !named.is_empty()) {
            l.push_op_samples(&named);
        }
        self.last_at = now;
        while self.next <= now {
            self.next += self.every;
        }
    }
}

/// Make (and find) what the tree holds before the clock starts.
fn format(
    st: &mut TreeState,
    t: &TreePlan,
    how: TreeFormat,
    buf: &[u8],
    (lo, hi): (u64, u64),
    rng: &mut Rng,
) -> io::Result<()> {
    let tree = &t.tree;
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
    for k in 0..tree.dirs() {
        let p = t.dir_path(Some(k));
        if p.is_dir() {
            st.dir_found(tree, k);
        } else if how != TreeFormat::No {
            match std::fs::create_dir(&p) {
                Ok(()) => st.made_dirs[k as usize] = true,
                // Another clone of a shared tree made it first.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(fsop::named(e, "mkdir", &p)),
            }
            st.dir_found(tree, k);
        }
    }
    // Find the existing files: one directory listing per directory.
    let holders: Vec<Option<u64>> = if tree.depth() == 0 {
        vec![None]
    } else {
        (0..tree.file_dirs())
            .map(|slot| tree.file_dir(slot * tree.files_per_dir()))
            .collect()
    };
    let per = tree.files_per_dir();
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
            let Some(num) = name.to_str().and_then(|n| t.file_number(n)) else {
                continue;
            };
            let i = slot as u64 * per + num;
            st.file_found(tree, i);
            st.foreign[i as usize] = true;
        }
    }
    match how {
        TreeFormat::No | TreeFormat::Dirs => {}
        TreeFormat::Restart | TreeFormat::Yes => {
            for i in 0..tree.files() {
                if how == TreeFormat::Yes && st.files.of(i) == PRESENT {
                    let p = t.file_path(i);
                    std::fs::remove_file(&p).map_err(|e| fsop::named(e, "unlink", &p))?;
                    st.files.set(i, ABSENT);
                    st.drop_child(tree.file_dir(i));
                }
                if st.files.of(i) != PRESENT {
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
                    st.file_found(tree, i);
                    st.foreign[i as usize] = false;
                }
            }
        }
    }
    Ok(())
}

/// Do one operation on its reserved target: the time it took, the data bytes it moved
/// and how it ended. `len` is what a write writes, `size` what a create writes.
#[allow(clippy::too_many_arguments)]
fn act(
    t: &TreePlan,
    op: MetaOp,
    target: Target,
    open: &mut Vec<(u64, std::os::fd::OwnedFd)>,
    stat_type: StatType,
    buf: &mut [u8],
    len: u64,
    size: u64,
) -> (u64, u64, io::Result<()>) {
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
    match (op, target) {
        (_, Target::Opened(k)) => {
            let (i, fd) = open.swap_remove(k);
            let mut fd = Some(fd);
            let r = timed(&mut || match fd.take() {
                Some(fd) => fsop::close(fd).map(|_| 0),
                None => Ok(0),
            });
            named(r, &t.file_path(i))
        }
        (_, Target::Dir(k)) => {
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
            named(r, &p)
        }
        (_, Target::Two(from, to)) => {
            let (pf, pt) = (t.file_path(from), t.file_path(to));
            let (cf, ct) = (c(&pf), c(&pt));
            let r = timed(&mut || {
                if op == MetaOp::Rename {
                    return fsop::rename_c(&cf, &ct).map(|_| 0);
                }
                let src = fsop::open_c(&cf, libc::O_RDONLY)?;
                let dst = fsop::create_c(&ct, libc::O_WRONLY | libc::O_EXCL)?;
                let n = fsop::copy_fd(&src, &dst, buf);
                fsop::close(src)?;
                fsop::close(dst)?;
                n
            });
            named(r, &pf)
        }
        (_, Target::File(i)) => {
            let p = t.file_path(i);
            let cp = c(&p);
            let r = timed(&mut || match op {
                MetaOp::Create => {
                    let fd = fsop::create_c(&cp, libc::O_WRONLY | libc::O_EXCL)?;
                    let w = fsop::write_fd(&fd, buf, size);
                    fsop::close(fd)?;
                    w
                }
                MetaOp::Open => {
                    open.push((i, fsop::open_c(&cp, libc::O_RDONLY)?));
                    Ok(0)
                }
                MetaOp::Stat => fsop::stat_c(&cp, stat_type).map(|_| 0),
                MetaOp::Setattr => fsop::touch_c(&cp).map(|_| 0),
                MetaOp::Access => fsop::access_c(&cp).map(|_| 0),
                MetaOp::Delete => fsop::unlink_c(&cp).map(|_| 0),
                MetaOp::Read => {
                    let fd = fsop::open_c(&cp, libc::O_RDONLY)?;
                    let n = fsop::read_fd(&fd, buf, u64::MAX);
                    fsop::close(fd)?;
                    n
                }
                _ => {
                    let fd = fsop::open_c(&cp, libc::O_WRONLY)?;
                    let n = fsop::write_fd(&fd, buf, len);
                    fsop::close(fd)?;
                    n
                }
            });
            named(r, &p)
        }
    }
}

/// unlink=1: remove the files made here, then the directories made here, deepest first
/// (a directory another clone still uses, or one that held files of someone else, stays).
fn remove_tree(st: &mut TreeState, t: &TreePlan, root_made: bool) {
    for i in 0..t.tree.files() {
        if st.files.of(i) == PRESENT && !st.foreign[i as usize] {
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
        assert_eq!((s.count(ABSENT), s.count(PRESENT)), (10, 0));
        s.set(3, PRESENT);
        s.set(7, PRESENT);
        s.set(3, PRESENT);
        assert_eq!((s.count(ABSENT), s.count(PRESENT)), (8, 2));
        assert!(s.of(7) == PRESENT && s.of(4) == ABSENT);
        s.set(3, BUSY);
        let mut rng = Rng::new(1);
        for _ in 0..20 {
            assert_eq!(s.random(PRESENT, &mut rng), Some(7));
            assert_eq!(s.random(BUSY, &mut rng), Some(3));
            assert_ne!(s.random(ABSENT, &mut rng), Some(7));
        }
        for i in 0..10 {
            s.set(i, PRESENT);
        }
        assert_eq!(s.random(ABSENT, &mut rng), None);
        let mut all: Vec<u32> = s.members[1].clone();
        all.sort();
        assert_eq!(all, (0..10).collect::<Vec<u32>>());
    }

    /// A reserved target is no one else's until released, and an rmdir never takes a
    /// directory a create or mkdir is about to fill.
    #[test]
    fn reservations_keep_targets_apart() {
        let t = Tree::new(1, 2, 2, false).unwrap();
        let mut st = TreeState::new(&t);
        let mut rng = Rng::new(7);
        let none: Vec<(u64, std::os::fd::OwnedFd)> = Vec::new();
        // No directory yet: no create, no rmdir; mkdir takes both, one at a time.
        assert!(st
            .reserve(&t, MetaOp::Create, false, &mut rng, &none, 8)
            .is_none());
        let Some(Target::Dir(a)) = st.reserve(&t, MetaOp::Mkdir, false, &mut rng, &none, 8) else {
            panic!("mkdir")
        };
        let Some(Target::Dir(b)) = st.reserve(&t, MetaOp::Mkdir, false, &mut rng, &none, 8) else {
            panic!("mkdir")
        };
        assert_ne!(a, b);
        assert!(st
            .reserve(&t, MetaOp::Mkdir, false, &mut rng, &none, 8)
            .is_none());
        st.release(&t, MetaOp::Mkdir, Target::Dir(a), true);
        st.release(&t, MetaOp::Mkdir, Target::Dir(b), false);
        assert!(st.dir_exists[a as usize] && !st.dir_exists[b as usize]);
        // A create in a: while it runs, a cannot be removed.
        let Some(Target::File(f)) = st.reserve(&t, MetaOp::Create, true, &mut rng, &none, 8) else {
            panic!("create")
        };
        assert_eq!(t.file_dir(f), Some(a));
        assert!(st
            .reserve(&t, MetaOp::Rmdir, false, &mut rng, &none, 8)
            .is_none());
        // Nor can the file being made be stat'ed.
        assert!(st
            .reserve(&t, MetaOp::Stat, false, &mut rng, &none, 8)
            .is_none());
        st.release(&t, MetaOp::Create, Target::File(f), true);
        assert!(matches!(
            st.reserve(&t, MetaOp::Stat, false, &mut rng, &none, 8),
            Some(Target::File(x)) if x == f
        ));
        st.release(&t, MetaOp::Stat, Target::File(f), true);
        // Rename to the other free name of a; then delete; then a is empty again.
        let Some(Target::Two(from, to)) = st.reserve(&t, MetaOp::Rename, false, &mut rng, &none, 8)
        else {
            panic!("rename")
        };
        assert_eq!((from, t.file_dir(to)), (f, Some(a)));
        st.release(&t, MetaOp::Rename, Target::Two(from, to), true);
        assert_eq!((st.files.of(f), st.files.of(to)), (ABSENT, PRESENT));
        assert_eq!(st.children[a as usize], 1);
        let Some(d) = st.reserve(&t, MetaOp::Delete, false, &mut rng, &none, 8) else {
            panic!("delete")
        };
        st.release(&t, MetaOp::Delete, d, true);
        assert_eq!(st.children[a as usize], 0);
        assert!(matches!(
            st.reserve(&t, MetaOp::Rmdir, false, &mut rng, &none, 8),
            Some(Target::Dir(x)) if x == a
        ));
    }
}
